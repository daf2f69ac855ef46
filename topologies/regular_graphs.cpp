// The topology kinds whose graph follows from their size alone: ring, torus, complete, star, hypercube.
#include "common/spec.hpp"
#include "topologies/generators.hpp"
#include "topologies/graph.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::topology {
namespace {

keys::Key nodes_key(std::int64_t min, std::int64_t max) {
  return keys::integer("nodes", "Number of nodes.")
      .between(static_cast<double>(min), static_cast<double>(max));
}

std::size_t count(Spec& spec, const std::string& key) {
  return static_cast<std::size_t>(spec.integer(key));
}

Topology torus(Spec& spec, std::uint64_t, const std::string&) {
  const auto sizes = spec.integers("dims");
  std::vector<std::size_t> dims(sizes.begin(), sizes.end());
  std::size_t n = 1;
  for (auto size : dims) {
    n *= size;
    if (n > static_cast<std::size_t>(max_nodes))
      spec.fail("dims", "the torus has more than " + std::to_string(max_nodes) + " nodes");
  }
  return build_topology("torus", n, torus_edges(dims), {});
}

const bool registered_regular_graphs =
    topologies().add({"ring", "A cycle: node i links to i ± 1 (mod n).", {nodes_key(2, max_nodes)}, {}},
                     [](Spec& spec, std::uint64_t, const std::string&) {
                       const std::size_t n = count(spec, "nodes");
                       return build_topology("ring", n, ring_edges(n), {});
                     }) &&
    topologies().add({"torus",
                      "A 2-D or 3-D torus (wrap-around grid).",
                      {keys::integers("dims", "Sizes per dimension, e.g. [4, 4] or [4, 4, 4].")
                           .between(2, static_cast<double>(max_nodes))
                           .items(2, 3)},
                      {}},
                     torus) &&
    topologies().add({"complete",
                      "Every pair of nodes linked (a single node is allowed: the centralised baseline).",
                      {nodes_key(1, max_dense_nodes)},
                      {}},
                     [](Spec& spec, std::uint64_t, const std::string&) {
                       const std::size_t n = count(spec, "nodes");
                       require_topology_memory(spec, n, 0.5 * static_cast<double>(n) * (n - 1));
                       return build_topology("complete", n, complete_edges(n), {});
                     }) &&
    topologies().add({"star", "Node 0 linked to every other node.", {nodes_key(2, max_nodes)}, {}},
                     [](Spec& spec, std::uint64_t, const std::string&) {
                       const std::size_t n = count(spec, "nodes");
                       return build_topology("star", n, star_edges(n), {});
                     }) &&
    topologies().add({"hypercube",
                      "2^dim nodes, linked when their ids differ in one bit.",
                      {keys::integer("dim", "The dimension.").between(1, 16)},
                      {}},
                     [](Spec& spec, std::uint64_t, const std::string&) {
                       const std::size_t dim = count(spec, "dim");
                       return build_topology("hypercube", std::size_t{1} << dim, hypercube_edges(dim), {});
                     });

}  // namespace
}  // namespace sgdsim::topology
