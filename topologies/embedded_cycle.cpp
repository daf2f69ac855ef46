#include "topologies/embedded_cycle.hpp"

#include "topologies/generators.hpp"
#include "topologies/graph.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <utility>

namespace sgdsim::topology {

namespace {

using Cell = std::pair<std::size_t, std::size_t>;  // (row, column)

// A cycle through every cell of an r × c grid (r, c ≥ 2), each step to a cell one row or one column away. It
// uses no wrap-around edge unless r and c are both odd, where no such cycle exists on the plain grid (it
// would alternate the two colours of a board with an odd number of cells); there it wraps once from the last
// row to the first, which needs r ≥ 3.
std::vector<Cell> grid_cycle(std::size_t r, std::size_t c) {
  std::vector<Cell> cells;
  cells.reserve(r * c);
  if (r % 2 == 0) {
    // Along row 0, snake back and forth through columns 1 … c − 1 of rows 1 … r − 1 (an odd number of rows,
    // so it ends at column 1), then up column 0.
    for (std::size_t j = 0; j < c; ++j) cells.emplace_back(0, j);
    for (std::size_t i = 1; i < r; ++i)
      for (std::size_t k = 1; k < c; ++k) cells.emplace_back(i, i % 2 == 1 ? c - k : k);
    for (std::size_t i = r - 1; i >= 1; --i) cells.emplace_back(i, 0);
    return cells;
  }
  if (c % 2 == 0) {
    for (const auto& [a, b] : grid_cycle(c, r)) cells.emplace_back(b, a);
    return cells;
  }
  // Both odd: the cycle of columns 0 … c − 2 (an even number), with column c − 1 spliced in between its
  // steps (2, c − 2) → (1, c − 2): right, down to the last row, wrap to row 0, down to row 1, left.
  for (const auto& cell : grid_cycle(r, c - 1)) {
    cells.push_back(cell);
    if (cell == Cell{2, c - 2}) {
      for (std::size_t i = 2; i < r; ++i) cells.emplace_back(i, c - 1);
      cells.emplace_back(0, c - 1);
      cells.emplace_back(1, c - 1);
    }
  }
  return cells;
}

bool is_cycle(const Topology& topology, const std::vector<std::size_t>& order) {
  const std::size_t n = topology.nodes;
  if (order.size() != n) return false;
  std::vector<bool> seen(n, false);
  for (std::size_t p = 0; p < n; ++p) {
    if (order[p] >= n || seen[order[p]]) return false;
    seen[order[p]] = true;
    if (n > 2 && !edge_index(topology, order[p], order[(p + 1) % n])) return false;
  }
  return n != 2 || edge_index(topology, order[0], order[1]).has_value();
}

// Pósa's rotation–extension search (as for Hamiltonian cycles of random graphs): grow a path from node 0 by
// an unvisited neighbour of its end; when the end has none, pick a neighbour w of the end on the path and
// reverse the part after w, which makes w's successor the new end; or turn the whole path around. Stops when
// the path holds every node and its two ends are neighbours, or after `budget` moves. Choices come from
// a fixed xorshift stream, so the cycle is the same on every run.
std::vector<std::size_t> search_cycle(const Topology& topology, std::size_t budget) {
  const std::size_t n = topology.nodes;
  constexpr std::size_t absent = SIZE_MAX;
  std::vector<std::size_t> path{0}, position(n, absent), unvisited;
  position[0] = 0;
  std::uint64_t state = 0x9E3779B97F4A7C15ULL;
  auto draw = [&](std::size_t bound) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return static_cast<std::size_t>(state % bound);
  };
  for (; budget > 0; --budget) {
    const std::size_t end = path.back();
    if (path.size() == n && edge_index(topology, end, path.front())) return path;
    unvisited.clear();
    for (std::size_t w : topology.neighbors[end])
      if (position[w] == absent) unvisited.push_back(w);
    if (!unvisited.empty()) {
      const std::size_t w = unvisited[draw(unvisited.size())];
      position[w] = path.size();
      path.push_back(w);
      continue;
    }
    // Half of the time turn the path around first, so that both of its ends move (on small or sparse graphs
    // the ends reachable by rotating one end only may never meet).
    if (draw(2) == 0) {
      std::reverse(path.begin(), path.end());
      for (std::size_t p = 0; p < path.size(); ++p) position[path[p]] = p;
      continue;
    }
    const std::vector<std::size_t>& around = topology.neighbors[end];
    const std::size_t i = position[around[draw(around.size())]];
    if (i + 2 >= path.size()) continue;  // the end's predecessor: reversing changes nothing
    std::reverse(path.begin() + static_cast<std::ptrdiff_t>(i + 1), path.end());
    for (std::size_t p = i + 1; p < path.size(); ++p) position[path[p]] = p;
  }
  return {};
}

}  // namespace

std::vector<std::size_t> torus_cycle(const std::vector<std::size_t>& dims) {
  if (dims.size() == 2) {
    std::vector<std::size_t> order;
    for (const auto& [i, j] : grid_cycle(dims[0], dims[1])) order.push_back(i * dims[1] + j);
    return order;
  }
  if (dims.size() != 3) throw std::logic_error("torus_cycle: 2 or 3 dimensions");
  // A cycle through each layer of the last two dimensions makes the torus contain a dims[0] × (layer size)
  // torus whose second dimension follows that cycle; a grid cycle of it visits every node.
  const std::vector<std::size_t> layer = torus_cycle({dims[1], dims[2]});
  std::vector<std::size_t> order;
  for (const auto& [i, m] : grid_cycle(dims[0], layer.size())) order.push_back(i * layer.size() + layer[m]);
  return order;
}

std::vector<std::size_t> hypercube_cycle(std::size_t dim) {
  std::vector<std::size_t> order(std::size_t{1} << dim);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i ^ (i >> 1);
  return order;
}

// The sizes of the torus whose edges these are (the graph keeps only its kind, nodes and edges): the divisors
// of n tried in order, compared edge for edge with torus_edges. Empty if none matches.
static std::vector<std::size_t> torus_dims(const Topology& topology) {
  const std::size_t n = topology.nodes;
  std::vector<std::vector<std::size_t>> candidates;
  for (std::size_t a = 2; a <= n / 2; ++a) {
    if (n % a != 0) continue;
    candidates.push_back({a, n / a});
    for (std::size_t b = 2; b <= n / a / 2; ++b)
      if ((n / a) % b == 0) candidates.push_back({a, b, n / a / b});
  }
  for (const auto& dims : candidates) {
    const Topology candidate = build_topology("torus", n, torus_edges(dims), {});
    if (candidate.edges.size() != topology.edges.size()) continue;
    bool same = true;
    for (std::size_t k = 0; same && k < candidate.edges.size(); ++k)
      same = candidate.edges[k].a == topology.edges[k].a && candidate.edges[k].b == topology.edges[k].b;
    if (same) return dims;
  }
  return {};
}

std::vector<std::size_t> embedded_cycle(const Topology& topology) {
  const std::size_t n = topology.nodes;
  std::vector<std::size_t> ids(n);
  for (std::size_t i = 0; i < n; ++i) ids[i] = i;
  // Through switches, every step of the id ring crosses its sender's and its receiver's own links only: each
  // node's uplink and downlink carry one flow each (a cluster numbers a host's devices consecutively, so the
  // ring leaves each host once).
  if (n <= 2 || !topology.routers.empty()) return ids;
  if (is_cycle(topology, ids)) return ids;
  if (topology.kind == "torus") {
    if (const auto dims = torus_dims(topology); !dims.empty()) {
      std::vector<std::size_t> snake = torus_cycle(dims);
      if (!is_cycle(topology, snake)) throw std::logic_error("embedded_cycle: the torus snake");
      return snake;
    }
  }
  if (topology.kind == "hypercube" && (n & (n - 1)) == 0) {
    std::size_t dim = 0;
    while ((std::size_t{1} << dim) < n) ++dim;
    if (std::vector<std::size_t> gray = hypercube_cycle(dim); is_cycle(topology, gray)) return gray;
  }
  if (n > max_searched_nodes) return {};
  for (std::size_t v = 0; v < n; ++v)
    if (topology.degree(v) < 2) return {};
  return search_cycle(topology, 100 * n + 100000);
}

}  // namespace sgdsim::topology
