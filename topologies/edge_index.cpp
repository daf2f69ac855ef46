// Finding the edge between two nodes: topology.edges is sorted by (a, b) with a < b, so a binary search.
#include <algorithm>
#include <utility>

#include "topologies/topology.hpp"

namespace sgdsim::topology {

std::optional<std::size_t> edge_index(const Topology& topology, std::size_t a, std::size_t b) {
  if (a > b) std::swap(a, b);
  const auto it = std::lower_bound(topology.edges.begin(), topology.edges.end(), std::make_pair(a, b),
                                   [](const Edge& e, const std::pair<std::size_t, std::size_t>& key) {
                                     return std::make_pair(e.a, e.b) < key;
                                   });
  if (it == topology.edges.end() || it->a != a || it->b != b) return std::nullopt;
  return static_cast<std::size_t>(it - topology.edges.begin());
}

}  // namespace sgdsim::topology
