#include "topologies/generators.hpp"

#include <unordered_set>

namespace sgdsim::topology {

EdgeList ring_edges(std::size_t n) {
  EdgeList edges;
  if (n < 2) return edges;
  if (n == 2) return {{0, 1}};
  for (std::size_t i = 0; i < n; ++i) edges.emplace_back(i, (i + 1) % n);
  return edges;
}

EdgeList torus_edges(const std::vector<std::size_t>& dims) {
  std::size_t n = 1;
  for (auto size : dims) n *= size;
  EdgeList edges;
  // stride[k] = product of the sizes after dimension k (row-major).
  std::vector<std::size_t> stride(dims.size(), 1);
  for (std::size_t k = dims.size(); k-- > 1;) stride[k - 1] = stride[k] * dims[k];
  for (std::size_t node = 0; node < n; ++node) {
    for (std::size_t k = 0; k < dims.size(); ++k) {
      const std::size_t coordinate = node / stride[k] % dims[k];
      // Only the "+1" neighbour, so each edge appears once; with size 2 the wrap edge is the same edge again.
      if (dims[k] < 2 || (dims[k] == 2 && coordinate == 1)) continue;
      const std::size_t next = (coordinate + 1) % dims[k];
      edges.emplace_back(node, node - coordinate * stride[k] + next * stride[k]);
    }
  }
  return edges;
}

EdgeList complete_edges(std::size_t n) {
  EdgeList edges;
  edges.reserve(n * (n - 1) / 2);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) edges.emplace_back(i, j);
  return edges;
}

EdgeList star_edges(std::size_t n) {
  EdgeList edges;
  for (std::size_t i = 1; i < n; ++i) edges.emplace_back(0, i);
  return edges;
}

EdgeList hypercube_edges(std::size_t dim) {
  const std::size_t n = std::size_t{1} << dim;
  EdgeList edges;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t bit = 0; bit < dim; ++bit) {
      const std::size_t j = i ^ (std::size_t{1} << bit);
      if (i < j) edges.emplace_back(i, j);
    }
  return edges;
}

EdgeList erdos_renyi_edges(std::size_t n, double p, Rng& rng) {
  // One comparison per pair keeps the draw bit-identical everywhere (no libm in the loop); O(n^2) is fine
  // for the few thousand nodes a simulation can hold.
  EdgeList edges;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      if (rng.uniform() < p) edges.emplace_back(i, j);
  return edges;
}

namespace {

// One attempt of sequential stub pairing that refuses loops and repeated edges.
std::optional<EdgeList> pair_stubs(std::size_t n, std::size_t d, Rng& rng) {
  std::vector<std::size_t> stubs;
  stubs.reserve(n * d);
  for (std::size_t v = 0; v < n; ++v)
    for (std::size_t k = 0; k < d; ++k) stubs.push_back(v);
  std::unordered_set<std::uint64_t> present;  // u * n + v with u < v; only membership is asked
  EdgeList edges;
  edges.reserve(n * d / 2);
  while (!stubs.empty()) {
    const std::size_t m = stubs.size();
    bool paired = false;
    // Enough tries that a pairable couple is found with overwhelming probability when one exists.
    for (std::size_t tries = 0; tries < 20 * m + 100 && !paired; ++tries) {
      const std::size_t i = rng.below(m), j = rng.below(m);
      std::size_t u = stubs[i], v = stubs[j];
      if (u == v) continue;
      if (u > v) std::swap(u, v);
      if (!present.insert(static_cast<std::uint64_t>(u) * n + v).second) continue;
      edges.emplace_back(u, v);
      // Remove both stubs, the larger index first so the smaller stays valid.
      for (std::size_t index : {std::max(i, j), std::min(i, j)}) {
        stubs[index] = stubs.back();
        stubs.pop_back();
      }
      paired = true;
    }
    if (!paired) return std::nullopt;
  }
  return edges;
}

}  // namespace

std::optional<EdgeList> random_regular_edges(std::size_t n, std::size_t d, Rng& rng) {
  if (d == n - 1) return complete_edges(n);
  if (2 * d <= n - 1) return pair_stubs(n, d, rng);
  // Dense case: pairing would stall, but the complement of a sparse regular graph is regular.
  auto sparse = pair_stubs(n, n - 1 - d, rng);
  if (!sparse) return std::nullopt;
  std::vector<std::uint8_t> adjacent(n * n, 0);
  for (auto [u, v] : *sparse) adjacent[u * n + v] = adjacent[v * n + u] = 1;
  EdgeList edges;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      if (!adjacent[i * n + j]) edges.emplace_back(i, j);
  return edges;
}

}  // namespace sgdsim::topology
