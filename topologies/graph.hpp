#pragma once
// Turning an edge list into a Topology, and the graph facts sgdsim checks or reports.
#include <cstddef>
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

}  // namespace sgdsim::topology
