#pragma once
// The modeled network as a graph: nodes, undirected edges with per-edge bandwidth and latency, and the mixing
// matrix W that gossip protocols use on it. The same type holds the physical network (network.topology: its
// vertices may include non-computing switches) and the logical graph a gossip protocol mixes over
// (algorithm.graph: computing nodes only).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/keys.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::topology {

struct Link {
  double bandwidth = 0;  // bytes per second, each direction (links are split-duplex)
  double latency = 0;    // seconds
};

struct Edge {
  std::size_t a = 0, b = 0;  // a < b
  Link link;
};

struct Topology {
  std::string kind;
  std::size_t nodes = 0;             // computing nodes: vertices 0 … nodes − 1
  std::vector<std::string> routers;  // non-computing vertices nodes, nodes + 1, … (switches), by name
  // Devices per host (a cluster): nodes h·gpus_per_host … (h + 1)·gpus_per_host − 1 share host h and its
  // intra-host link; 1 elsewhere (every node its own host).
  std::size_t gpus_per_host = 1;
  std::vector<Edge> edges;                          // sorted by (a, b), no duplicates, no self-loops
  std::vector<std::vector<std::size_t>> neighbors;  // sorted ascending, per vertex
  std::size_t degree(std::size_t i) const { return neighbors[i].size(); }
  std::size_t vertices() const { return nodes + routers.size(); }
};

// The index in topology.edges of the edge between nodes a and b (in either order), if there is one.
std::optional<std::size_t> edge_index(const Topology& topology, std::size_t a, std::size_t b);

// W: symmetric, doubly stochastic, nonzero only on edges and the diagonal.
struct Mixing {
  std::vector<double> self;                   // w_ii
  std::vector<std::vector<double>> neighbor;  // neighbor[i][k] = w_{i, neighbors[i][k]}
};

// The topology kinds; each registers itself from its own file (regular_graphs.cpp, random_graphs.cpp, ...).
// A factory reads its keys and returns the graph (links are set afterwards); random kinds draw from `seed`,
// file kinds resolve relative paths against `base_dir`.
using TopologyFactory = std::function<Topology(Spec&, std::uint64_t seed, const std::string& base_dir)>;
keys::Registry<TopologyFactory>& topologies();

// The keys of the scenario's "network" object that this layer reads: topology, link, heterogeneity,
// overrides.
std::vector<keys::Key> network_keys();

// Reads those keys of `network`: the graph, then the links (default, heterogeneity, per-edge overrides).
Topology make_topology(Spec& network, std::uint64_t seed, const std::string& base_dir);

// The scenario key algorithm.graph, declared by every protocol that mixes (beside weights_key): the logical
// graph, an object like network.topology without switches. Absent: the physical network's graph.
keys::Key graph_key();
// The logical graph of `algorithm` (whose kind declares graph_key) on `network`: its "graph" when given (the
// same number of nodes, no switches), else `network` itself when its nodes are linked directly. A network
// of switches has no node-to-node edges to mix over: then "graph" must be given (InputError naming it).
// Returns nullopt when the logical graph is `network` itself.
std::optional<Topology> make_logical_graph(Spec& algorithm, const Topology& network, std::uint64_t seed,
                                           const std::string& base_dir);

// "metropolis" (w_ij = 1/(1 + max(deg_i, deg_j))) or "uniform" (w_ij = 1/(1 + max degree)). Checks W.
Mixing make_mixing(const Topology& topology, const std::string& weights);
// The scenario key that chooses those weights (declared once for every protocol that mixes).
keys::Key weights_key();

// How spectral_gap finds lambda_2: `automatic` is exact (dense, Eigen) up to dense_gap_limit nodes and
// Lanczos above.
enum class GapMethod { automatic, dense, lanczos };
inline constexpr std::size_t dense_gap_limit = 2048;

// delta = 1 - |lambda_2(W)| (second largest eigenvalue magnitude). Dense: exact, O(n^3). Lanczos: 300 steps
// on the sparse W with the all-ones direction removed; an upper bound on delta that is tight for
// well-connected graphs and loose for very large rings and tori (see docs/network.md). A single node has
// delta = 1.
double spectral_gap(const Topology& topology, const Mixing& mixing, GapMethod method = GapMethod::automatic);

// Hop diameter (BFS from every node).
std::size_t diameter(const Topology& topology);

}  // namespace sgdsim::topology
