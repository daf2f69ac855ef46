// The physical network kind fat_tree: an extended generalized fat tree XGFT(h; m₁…m_h; w₁…w_h) (Öhring et
// al. 1995), SimGrid's fat-tree zone's parameters ("levels; down; up"). Hosts are level 0; a switch of level
// l has m_l children at level l − 1, and a node of level l − 1 has w_l parents at level l. Routes go up to
// the lowest level whose switches cover both ends, then down; the up-link at each level is chosen by
// destination (D-mod-k, as SimGrid's fat-tree zone routes), which spreads the flows to different destinations
// over the parallel up-links (the capability "destination_routing", sim/neighbour_zone.hpp).
#include "topologies/fat_tree.hpp"

#include "common/spec.hpp"
#include "topologies/graph.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::topology {

namespace {

// Nodes of each level 0 … h: count[l] = m_{l+1}⋯m_h · w₁⋯w_l.
std::vector<double> level_counts(const FatTreeShape& shape) {
  const std::size_t levels = shape.down.size();
  std::vector<double> count(levels + 1, 1.0);
  for (std::size_t l = 0; l <= levels; ++l) {
    for (std::size_t i = l; i < levels; ++i) count[l] *= static_cast<double>(shape.down[i]);
    for (std::size_t i = 0; i < l; ++i) count[l] *= static_cast<double>(shape.up[i]);
  }
  return count;
}

}  // namespace

std::size_t FatTreeShape::bottom() const {
  return static_cast<std::size_t>(level_counts(*this)[0]);
}

std::vector<keys::Key> fat_tree_keys() {
  return {keys::integers("down", "Children of a switch, per level from the leaves up: [m₁, …, m_h].")
              .between(1, static_cast<double>(max_nodes))
              .items(1, 4),
          keys::integers("up",
                         "Parents of a node, per level from the hosts up: [w₁, …, w_h] (w₁ > 1: hosts with "
                         "several NICs, each to its own leaf switch).")
              .between(1, 1024)
              .items(1, 4)};
}

FatTreeShape read_fat_tree(Spec& spec) {
  FatTreeShape shape{spec.integers("down"), spec.integers("up")};
  if (shape.up.size() != shape.down.size())
    spec.fail("up", "gives " + std::to_string(shape.up.size()) + " levels, \"down\" " +
                        std::to_string(shape.down.size()) + "; give one count per level to both");
  const std::vector<double> count = level_counts(shape);
  if (count[0] > static_cast<double>(max_nodes))
    spec.fail("down", "the fat tree has more than " + std::to_string(max_nodes) + " hosts");
  if (count[0] < 2) spec.fail("down", "a fat tree needs at least 2 hosts");
  double vertices = 0, edges = 0;
  for (std::size_t l = 0; l < count.size(); ++l) {
    vertices += count[l];
    if (l > 0) edges += count[l - 1] * static_cast<double>(shape.up[l - 1]);
  }
  if (vertices > static_cast<double>(4 * max_nodes))
    spec.fail("up", "the fat tree has more than " + std::to_string(4 * max_nodes) + " hosts and switches");
  require_topology_memory(spec, static_cast<std::size_t>(vertices), edges);
  return shape;
}

// A node of level l has the label (a_h … a_{l+1}; b_l … b_1), a_i < m_i, b_i < w_i, and the index A·W_l + B
// among its level, where A is the a digits (a_{l+1} least significant, radix m), B the b digits (b₁ least
// significant, radix w) and W_l = w₁⋯w_l. Its parents drop a_{l+1} and add each b_{l+1}: in increasing
// index order they are b_{l+1} = 0, 1, …, the digit D-mod-k picks. Level-0 indices are host ids (or host
// numbers), so the m₁ children of a leaf switch are consecutive.
void add_fat_tree_switches(const FatTreeShape& shape, std::size_t first_bottom, std::size_t first_switch,
                           EdgeList& edges, std::vector<std::string>& routers) {
  const std::vector<double> count = level_counts(shape);
  const std::size_t levels = shape.down.size();
  std::vector<std::size_t> first(levels + 1, first_bottom);  // the vertex of index 0 of each level
  for (std::size_t l = 1; l <= levels; ++l) {
    first[l] = (l == 1 ? first_switch : first[l - 1] + static_cast<std::size_t>(count[l - 1]));
    for (std::size_t i = 0; i < static_cast<std::size_t>(count[l]); ++i)
      routers.push_back("switch" + std::to_string(l) + "." + std::to_string(i));
  }
  std::size_t below_width = 1;  // W_{l−1}
  for (std::size_t l = 1; l <= levels; ++l) {
    const auto m = static_cast<std::size_t>(shape.down[l - 1]), w = static_cast<std::size_t>(shape.up[l - 1]);
    for (std::size_t i = 0; i < static_cast<std::size_t>(count[l - 1]); ++i) {
      const std::size_t upper = i / below_width, b = i % below_width;  // A' = a_l + m·A, B'
      const std::size_t a = upper / m;
      for (std::size_t digit = 0; digit < w; ++digit)
        edges.emplace_back(first[l - 1] + i, first[l] + a * below_width * w + b + digit * below_width);
    }
    below_width *= w;
  }
}

namespace {

Topology fat_tree(Spec& spec, std::uint64_t, const std::string&) {
  const FatTreeShape shape = read_fat_tree(spec);
  const std::size_t n = shape.bottom();
  EdgeList edges;
  std::vector<std::string> routers;
  add_fat_tree_switches(shape, 0, n, edges, routers);
  return build_topology("fat_tree", n, edges, {}, std::move(routers));
}

const bool registered_fat_tree = topologies().add(
    {"fat_tree",
     "A fat tree of switches (the extended generalized fat tree of SimGrid's fat-tree zone): hosts are the "
     "leaves (the nodes), a switch of level l has down[l] children and every node below it up[l] parents; "
     "all "
     "links are network.link. A message climbs to the lowest level whose switches reach both hosts, then "
     "descends; at each level its up-link is chosen by its destination (D-mod-k), so flows to different "
     "hosts "
     "take different up-links. Hosts under one leaf switch are consecutive ids. Example: down [4, 4], up [1, "
     "2]: 16 hosts, 4 leaf switches of 4 hosts with 2 up-links each (2:1 oversubscribed), 2 spines. A gossip "
     "protocol on it needs algorithm.graph.",
     fat_tree_keys(),
     {"destination_routing"}},
    fat_tree);

}  // namespace
}  // namespace sgdsim::topology
