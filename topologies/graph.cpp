#include "topologies/graph.hpp"

#include <algorithm>
#include <stdexcept>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>

#include "common/memory_limit.hpp"
#include "common/spec.hpp"

namespace sgdsim::topology {

double topology_bytes(std::size_t nodes, double edges) {
  // Per edge: two 16-byte pairs while building, the Edge with its Link, two adjacency entries, two mixing
  // weights; SimGrid's split-duplex link, its route and the two channels of the edge, about 10 kB together
  // (measured: a 1000-node complete graph, 499 500 edges, peaks at 4.8 GB under D-PSGD, a 1000-node ring at
  // 64 MB). Per node: a SimGrid host with its netpoint and actor, about 2 kB, plus small vectors.
  constexpr double per_edge = 2 * 16 + sizeof(Edge) + 2 * 8 + 2 * 8 + 10240;
  constexpr double per_node = 2048 + 3 * sizeof(std::vector<double>);
  return per_edge * edges + per_node * static_cast<double>(nodes);
}

MemoryParts memory_parts(const Topology& topology) {
  return {{"topology and SimGrid platform",
           topology_bytes(topology.vertices(), static_cast<double>(topology.edges.size()))}};
}

void require_topology_memory(const Spec& spec, std::size_t nodes, double edges) {
  require_memory({{"topology (" + std::to_string(static_cast<long long>(edges)) + " edges)",
                   topology_bytes(nodes, edges)}},
                 spec.where("nodes"));
}

Topology build_topology(std::string kind, std::size_t nodes, const EdgeList& edges, const Link& link,
                        std::vector<std::string> routers) {
  Topology topology;
  topology.kind = std::move(kind);
  topology.nodes = nodes;
  topology.routers = std::move(routers);
  const std::size_t vertices = topology.vertices();
  std::vector<std::pair<std::size_t, std::size_t>> oriented;
  oriented.reserve(edges.size());
  for (auto [u, v] : edges) {
    if (u == v || u >= vertices || v >= vertices) throw std::logic_error("build_topology: bad edge");
    oriented.emplace_back(std::min(u, v), std::max(u, v));
  }
  std::sort(oriented.begin(), oriented.end());
  oriented.erase(std::unique(oriented.begin(), oriented.end()), oriented.end());
  topology.neighbors.assign(vertices, {});
  topology.edges.reserve(oriented.size());
  for (auto [a, b] : oriented) {
    topology.edges.push_back(Edge{a, b, link});
    topology.neighbors[a].push_back(b);
    topology.neighbors[b].push_back(a);
  }
  for (auto& list : topology.neighbors) std::sort(list.begin(), list.end());
  return topology;
}

std::vector<std::size_t> components(const Topology& topology) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  Graph graph(topology.vertices());
  for (const auto& edge : topology.edges) boost::add_edge(edge.a, edge.b, graph);
  std::vector<std::size_t> label(topology.vertices());
  if (!label.empty()) boost::connected_components(graph, label.data());
  return label;
}

std::size_t diameter(const Topology& topology) {
  // Exact: one BFS per node, O(n * m), over every vertex (switches included), the longest route between two
  // nodes. Unreachable pairs would make it infinite; topologies are connected.
  const std::size_t n = topology.vertices();
  std::vector<std::size_t> distance(n), queue(n);
  std::size_t longest = 0;
  for (std::size_t source = 0; source < topology.nodes; ++source) {
    std::fill(distance.begin(), distance.end(), SIZE_MAX);
    distance[source] = 0;
    std::size_t head = 0, tail = 0;
    queue[tail++] = source;
    while (head < tail) {
      const std::size_t u = queue[head++];
      for (auto v : topology.neighbors[u]) {
        if (distance[v] != SIZE_MAX) continue;
        distance[v] = distance[u] + 1;
        if (v < topology.nodes) longest = std::max(longest, distance[v]);
        queue[tail++] = v;
      }
    }
    if (tail != n) throw std::logic_error("diameter: the topology is not connected");
  }
  return longest;
}

std::string describe_components(const Topology& topology) {
  const auto label = components(topology);
  std::size_t count = 0, stray = topology.vertices();
  for (std::size_t i = 0; i < label.size(); ++i) {
    count = std::max(count, label[i] + 1);
    if (label[i] != label[0] && stray == topology.vertices()) stray = i;
  }
  if (count <= 1) return {};
  return std::to_string(count) + " connected components (node " + std::to_string(stray) +
         " cannot be reached from node 0)";
}

}  // namespace sgdsim::topology
