// make_topology: the scenario's "network.topology" object -> a connected graph with per-edge links.
#include <cmath>
#include <filesystem>

#include "common/error.hpp"
#include "common/rng.hpp"
#include "common/spec.hpp"
#include "topologies/edge_list.hpp"
#include "topologies/generators.hpp"
#include "topologies/graph.hpp"
#include "topologies/links.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::topology {

namespace {

// Limits that keep generation and the simulator's platform within what one machine can hold.
constexpr std::int64_t max_nodes = 100000;
constexpr std::int64_t max_dense_nodes =
    10000;                       // complete graphs, dense random graphs: O(n^2) edges or draws
constexpr int max_draws = 1000;  // random graphs redrawn until connected

struct Drawn {
  std::size_t nodes = 0;
  EdgeList edges;
};

std::string describe_components(const Topology& topology) {
  const auto label = components(topology);
  std::size_t count = 0, stray = topology.nodes;
  for (std::size_t i = 0; i < topology.nodes; ++i) {
    count = std::max(count, label[i] + 1);
    if (label[i] != label[0] && stray == topology.nodes) stray = i;
  }
  if (count <= 1) return {};
  return std::to_string(count) + " connected components (node " + std::to_string(stray) +
         " cannot be reached from node 0)";
}

// Redraws a random family from one stream until the graph is connected.
template <typename Draw>
Topology draw_connected(Spec& spec, const std::string& kind, std::size_t nodes, std::uint64_t seed,
                        const std::string& hint, Draw draw) {
  Rng rng = Rng::stream(seed, 0, Purpose::topology);
  for (int attempt = 0; attempt < max_draws; ++attempt) {
    std::optional<EdgeList> edges = draw(rng);
    if (!edges) continue;
    Topology topology = build_topology(kind, nodes, *edges, {});
    if (describe_components(topology).empty()) return topology;
  }
  spec.fail("kind",
            "no connected " + kind + " graph found in " + std::to_string(max_draws) + " draws" + hint);
}

Topology read_graph(Spec& spec, std::uint64_t seed, const std::string& base_dir) {
  const std::string kind = spec.choice(
      "kind", {"ring", "torus", "erdos_renyi", "random_regular", "complete", "star", "hypercube", "edges"});
  auto count = [&](const std::string& key, std::int64_t min, std::int64_t max) {
    return static_cast<std::size_t>(spec.integer(key, std::nullopt, min, max));
  };
  if (kind == "ring") {
    const std::size_t n = count("nodes", 2, max_nodes);
    return build_topology(kind, n, ring_edges(n), {});
  }
  if (kind == "torus") {
    const auto sizes = spec.integers("dims", 2, max_nodes);
    if (sizes.size() < 2 || sizes.size() > 3) spec.expected("dims", "2 or 3 sizes, e.g. [4, 4] or [4, 4, 4]");
    std::vector<std::size_t> dims(sizes.begin(), sizes.end());
    std::size_t n = 1;
    for (auto size : dims) {
      n *= size;
      if (n > static_cast<std::size_t>(max_nodes))
        spec.fail("dims", "the torus has more than " + std::to_string(max_nodes) + " nodes");
    }
    return build_topology(kind, n, torus_edges(dims), {});
  }
  if (kind == "complete") {
    // A single node is allowed here: the centralised baseline.
    const std::size_t n = count("nodes", 1, max_dense_nodes);
    return build_topology(kind, n, complete_edges(n), {});
  }
  if (kind == "star") {
    const std::size_t n = count("nodes", 2, max_nodes);
    return build_topology(kind, n, star_edges(n), {});
  }
  if (kind == "hypercube") {
    const std::size_t dim = count("dim", 1, 16);
    return build_topology(kind, std::size_t{1} << dim, hypercube_edges(dim), {});
  }
  if (kind == "erdos_renyi") {
    const std::size_t n = count("nodes", 2, max_dense_nodes);
    const double p = spec.number("p", std::nullopt, 0.0, 1.0);
    if (p == 0) spec.expected("p", "an edge probability in (0, 1]");
    char hint[160];
    std::snprintf(hint, sizeof hint,
                  "; G(n, p) is connected with high probability only for p above ln(n)/n = %.4g",
                  std::log(static_cast<double>(n)) / static_cast<double>(n));
    return draw_connected(spec, kind, n, seed, hint,
                          [&](Rng& rng) { return std::optional<EdgeList>(erdos_renyi_edges(n, p, rng)); });
  }
  if (kind == "random_regular") {
    const std::size_t n = count("nodes", 2, max_nodes);
    const std::size_t d = count("degree", 1, max_nodes);
    if (d >= n)
      spec.fail("degree", "the degree must be below the number of nodes (" + std::to_string(n) + ")");
    if (n * d % 2 == 1) spec.fail("degree", "nodes * degree must be even (each edge has two ends)");
    if (d == 1 && n > 2) spec.fail("degree", "a 1-regular graph on more than 2 nodes is never connected");
    if (2 * d > n - 1 && n > static_cast<std::size_t>(max_dense_nodes))
      spec.fail("degree",
                "a dense random regular graph is limited to " + std::to_string(max_dense_nodes) + " nodes");
    return draw_connected(spec, kind, n, seed, "", [&](Rng& rng) { return random_regular_edges(n, d, rng); });
  }
  // kind == "edges": a file, relative to the scenario's folder.
  std::filesystem::path path = spec.string("path");
  if (path.is_relative() && !base_dir.empty()) path = std::filesystem::path(base_dir) / path;
  std::optional<std::size_t> declared;
  if (spec.has("nodes")) declared = count("nodes", 1, max_nodes);
  EdgeFile file = read_edge_list(path.string(), declared ? *declared - 1 : max_nodes - 1);
  Topology topology = build_topology(kind, declared.value_or(file.nodes), file.edges, {});
  if (auto problem = describe_components(topology); !problem.empty())
    spec.fail("path", path.string() + ": the edge list is not connected: " + problem);
  return topology;
}

}  // namespace

Topology make_topology(Spec& network, std::uint64_t seed, const std::string& base_dir) {
  Spec spec = network.object("topology", /*required=*/true);
  Topology topology = read_graph(spec, seed, base_dir);
  spec.finish();
  const Link link = read_default_link(network);
  for (auto& edge : topology.edges) edge.link = link;
  apply_link_variations(network, seed, topology);
  return topology;
}

}  // namespace sgdsim::topology
