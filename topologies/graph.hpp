#pragma once
// Turning an edge list into a Topology, and the graph facts sgdsim checks or reports.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/memory_limit.hpp"
#include "topologies/generators.hpp"
#include "topologies/topology.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::topology {

// Sorts, orients (a < b) and deduplicates the edges and fills the adjacency lists; every link gets `link`.
// `routers` names the non-computing vertices nodes, nodes + 1, … (switches). Self-loops and out-of-range
// vertices are bugs of the caller (std::logic_error).
Topology build_topology(std::string kind, std::size_t nodes, const EdgeList& edges, const Link& link,
                        std::vector<std::string> routers = {});

// Connected-component label of every vertex (Boost.Graph); node 0 is in component 0.
std::vector<std::size_t> components(const Topology& topology);
// "" for a connected graph, else "3 connected components (node 5 cannot be reached from node 0)".
std::string describe_components(const Topology& topology);

// Rough peak bytes of a graph with `edges` edges on `nodes` nodes, through to the simulator's platform: the
// generated and sorted edge lists, the adjacency lists, the mixing weights and SimGrid's hosts, split-duplex
// links and routes (measured, rounded up). Scenario validation adds it to its memory estimate; generators of
// dense graphs check it before drawing a single edge.
double topology_bytes(std::size_t nodes, double edges);
// The topology's part of a run's memory estimate: topology_bytes of its nodes and edges.
MemoryParts memory_parts(const Topology& topology);
// Throws InputError (naming `spec`'s "nodes") when topology_bytes alone exceeds the memory limit.
void require_topology_memory(const Spec& spec, std::size_t nodes, double edges);

// Limits that keep generation and the simulator's platform within what one machine can hold.
inline constexpr std::int64_t max_nodes = 100000;
// Complete graphs and dense random graphs: O(n^2) edges or draws.
inline constexpr std::int64_t max_dense_nodes = 10000;

}  // namespace sgdsim::topology
