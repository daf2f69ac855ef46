#pragma once
// Edge sets of the graph families sgdsim knows. Each returns undirected edges (u, v) in any order; the caller
// normalises them into a Topology. Random families make one draw and leave connectivity to the caller.
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "common/rng.hpp"

namespace sgdsim::topology {

using EdgeList = std::vector<std::pair<std::size_t, std::size_t>>;

// Cycle 0-1-...-(n-1)-0; n = 2 is the single edge (no multi-edges).
EdgeList ring_edges(std::size_t n);
// Wrap-around grid; node index is row-major over `dims`. A dimension of size 2 gives one edge, not two.
EdgeList torus_edges(const std::vector<std::size_t>& dims);
EdgeList complete_edges(std::size_t n);
// Node 0 is the hub.
EdgeList star_edges(std::size_t n);
// 2^dim nodes, an edge between labels differing in one bit.
EdgeList hypercube_edges(std::size_t dim);
// G(n, p): every pair independently with probability p (one uniform draw per pair, in (i, j) order).
EdgeList erdos_renyi_edges(std::size_t n, double p, Rng& rng);
// A uniform-ish simple d-regular graph by sequential random pairing of stubs (Steger-Wormald); for
// d > (n-1)/2 the complement of a (n-1-d)-regular graph. nullopt when the pairing got stuck (redraw).
std::optional<EdgeList> random_regular_edges(std::size_t n, std::size_t d, Rng& rng);

}  // namespace sgdsim::topology
