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
  const std::string hint =
      fmt::format("; G(n, p) is connected with high probability only for p above ln(n)/n = {:.4g}",
                  std::log(static_cast<double>(n)) / static_cast<double>(n));
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
  return draw_connected(spec, "random_regular", n, seed, "",
                        [&](Rng& rng) { return random_regular_edges(n, d, rng); });
}

const bool registered =
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
