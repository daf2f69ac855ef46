#pragma once
// Turning an edge list into a Topology, and the graph facts sgdsim checks or reports.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "topologies/generators.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::topology {

// Sorts, orients (a < b) and deduplicates the edges and fills the adjacency lists; every link gets `link`.
// Self-loops and out-of-range nodes are bugs of the caller (std::logic_error).
Topology build_topology(std::string kind, std::size_t nodes, const EdgeList& edges, const Link& link);

// Connected-component label of every node (Boost.Graph); node 0 is in component 0.
std::vector<std::size_t> components(const Topology& topology);
// "" for a connected graph, else "3 connected components (node 5 cannot be reached from node 0)".
std::string describe_components(const Topology& topology);

// Limits that keep generation and the simulator's platform within what one machine can hold.
inline constexpr std::int64_t max_nodes = 100000;
// Complete graphs and dense random graphs: O(n^2) edges or draws.
inline constexpr std::int64_t max_dense_nodes = 10000;

}  // namespace sgdsim::topology
