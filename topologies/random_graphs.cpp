// The topology kinds drawn at random from the seed: erdos_renyi and random_regular, redrawn until connected.
#include <cmath>

#include <fmt/format.h>

#include "common/rng.hpp"
#include "common/spec.hpp"
#include "topologies/generators.hpp"
#include "topologies/graph.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::topology {
namespace {

constexpr int max_draws = 1000;
// Expected isolated nodes above which G(n, p) is refused without drawing (e^-30 ≈ 1e-13 per draw).
constexpr double isolated_limit = 30;

// Redraws from one stream until the graph is connected.
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

Topology erdos_renyi(Spec& spec, std::uint64_t seed, const std::string&) {
  const auto n = static_cast<std::size_t>(spec.integer("nodes"));
  const double p = spec.number("p");
  const double threshold = std::log(static_cast<double>(n)) / static_cast<double>(n);
  const std::string hint = fmt::format(
      "; G(n, p) is connected with high probability only for p above ln(n)/n = {:.4g}", threshold);
  // Each draw costs n^2/2 random numbers (97 s for 1000 draws at n = 10000), so a graph that is almost never
  // connected is refused before drawing: with μ = n (1 − p)^(n−1) isolated nodes expected, a draw has no
  // isolated node with probability about e^−μ, and μ > isolated_limit makes all the draws fail.
  const double isolated = static_cast<double>(n) * std::pow(1.0 - p, static_cast<double>(n - 1));
  if (isolated > isolated_limit) {
    spec.fail("p", fmt::format("G(n = {}, p = {:.4g}) is almost never connected: {:.4g} isolated nodes "
                               "are expected in a draw (about e^-{:.4g} of the draws have none){}",
                               n, p, isolated, isolated, hint));
  }
  require_topology_memory(spec, n, p * 0.5 * static_cast<double>(n) * static_cast<double>(n - 1));
  return draw_connected(spec, "erdos_renyi", n, seed, hint,
                        [&](Rng& rng) { return std::optional<EdgeList>(erdos_renyi_edges(n, p, rng)); });
}

Topology random_regular(Spec& spec, std::uint64_t seed, const std::string&) {
  const auto n = static_cast<std::size_t>(spec.integer("nodes"));
  const auto d = static_cast<std::size_t>(spec.integer("degree"));
  if (d >= n) spec.fail("degree", "the degree must be below the number of nodes (" + std::to_string(n) + ")");
  if (n * d % 2 == 1) spec.fail("degree", "nodes * degree must be even (each edge has two ends)");
  if (d == 1 && n > 2) spec.fail("degree", "a 1-regular graph on more than 2 nodes is never connected");
  if (2 * d > n - 1 && n > static_cast<std::size_t>(max_dense_nodes))
    spec.fail("degree",
              "a dense random regular graph is limited to " + std::to_string(max_dense_nodes) + " nodes");
  require_topology_memory(spec, n, 0.5 * static_cast<double>(n) * static_cast<double>(d));
  return draw_connected(spec, "random_regular", n, seed, "",
                        [&](Rng& rng) { return random_regular_edges(n, d, rng); });
}

const bool registered_random_graphs =
    topologies().add(
        {"erdos_renyi",
         "G(n, p): every pair linked with probability p, redrawn until connected.",
         {keys::integer("nodes", "Number of nodes.").between(2, static_cast<double>(max_dense_nodes)),
          keys::number("p", "Edge probability.").above(0).at_most(1)},
         {}},
        erdos_renyi) &&
    topologies().add(
        {"random_regular",
         "A uniformly drawn graph whose nodes all have `degree` neighbours, redrawn until connected.",
         {keys::integer("nodes", "Number of nodes.").between(2, static_cast<double>(max_nodes)),
          keys::integer("degree", "Neighbours per node.").between(1, static_cast<double>(max_nodes))},
         {}},
        random_regular);

}  // namespace
}  // namespace sgdsim::topology
