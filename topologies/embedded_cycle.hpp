#pragma once
// A cycle through every node of a graph whose consecutive nodes are joined by an edge (a Hamiltonian cycle):
// the ring a ring all-reduce follows so that each of its steps crosses one link (NCCL builds its rings the
// same way from the machine's topology).
#include <cstddef>
#include <vector>

#include "topologies/topology.hpp"

namespace sgdsim::topology {

// The snake cycle of a 2-D or 3-D torus of these sizes (row-major ids, as torus_edges numbers them).
std::vector<std::size_t> torus_cycle(const std::vector<std::size_t>& dims);

// The reflected Gray code: 2^dim ids, consecutive ones (and the last and the first) differ in one bit.
std::vector<std::size_t> hypercube_cycle(std::size_t dim);

// The graph's embedded cycle: the ids in order on a network of switches (switch, cluster) and when i — i + 1
// (mod n) are all edges (ring, complete), the snake of a torus (its sizes recovered from its edges), the Gray
// code of a hypercube, else, up to max_searched_nodes nodes, one found by Pósa's rotation–extension search
// within 100·n + 100 000 moves. Empty when there is none or none was found (a star, a tree, a sparse random
// graph). A graph of 1 or 2 nodes is its ids.
std::vector<std::size_t> embedded_cycle(const Topology& topology);
inline constexpr std::size_t max_searched_nodes = 4096;

}  // namespace sgdsim::topology
