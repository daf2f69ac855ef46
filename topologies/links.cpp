#include "topologies/links.hpp"

#include "common/rng.hpp"
#include "common/spec.hpp"

namespace sgdsim::topology {

const keys::Object& link_keys() {
  static const keys::Object object{
      "link",
      "Bandwidth and latency of a link, each direction.",
      {keys::bandwidth("bandwidth", "Bandwidth of each direction.").fallback_to("100Mbps"),
       keys::duration("latency", "Latency of one hop.").fallback_to("500us")}};
  return object;
}

const keys::Object& heterogeneity_keys() {
  static const keys::Object object{
      "heterogeneity",
      "Spread s: each edge's value is multiplied by a factor uniform in [1 - s, 1 + s], drawn from the seed.",
      {keys::number("bandwidth", "Spread of the bandwidth.").fallback_to(0.0).between(0, 0.99),
       keys::number("latency", "Spread of the latency.").fallback_to(0.0).between(0, 0.99)}};
  return object;
}

const keys::Object& override_keys() {
  static const keys::Object object{
      "override",
      "Sets bandwidth and/or latency outright on one edge or on every edge of one node (later entries win).",
      {keys::integers("edge", "One edge [a, b].").at_least(0).items(2, 2).may_be_absent(),
       keys::integer("node", "Every edge of this node.").at_least(0).may_be_absent(),
       keys::bandwidth("bandwidth", "The new bandwidth.").may_be_absent(),
       keys::duration("latency", "The new latency.").may_be_absent()}};
  return object;
}

Link read_default_link(Spec& network) {
  Spec spec = network.object("link");
  Link link;
  link.bandwidth = spec.bandwidth("bandwidth");
  link.latency = spec.duration("latency");
  spec.finish();
  return link;
}

namespace {

void apply_heterogeneity(Spec& network, std::uint64_t seed, Topology& topology) {
  Spec spec = network.object("heterogeneity");
  // Spread s: each edge's value is multiplied by a factor uniform in [1 - s, 1 + s] (mean 1, never <= 0).
  const double bandwidth_spread = spec.number("bandwidth");
  const double latency_spread = spec.number("latency");
  spec.finish();
  if (bandwidth_spread == 0 && latency_spread == 0) return;
  // Stream (seed, 1, topology): the graph itself uses node 0, so heterogeneity never changes the graph.
  Rng rng = Rng::stream(seed, 1, Purpose::topology);
  for (auto& edge : topology.edges) {
    // Two draws per edge always, so switching one spread on or off leaves the other's factors unchanged.
    const double u_bandwidth = rng.uniform(), u_latency = rng.uniform();
    edge.link.bandwidth *= 1 + bandwidth_spread * (2 * u_bandwidth - 1);
    edge.link.latency *= 1 + latency_spread * (2 * u_latency - 1);
  }
}

void apply_overrides(Spec& network, Topology& topology) {
  const auto max_node = static_cast<std::int64_t>(topology.nodes) - 1;
  for (Spec& entry : network.objects("overrides")) {
    // Which edges: one edge [a, b], or every edge of one node.
    std::vector<Edge*> targets;
    if (entry.has("edge") == entry.has("node"))
      entry.fail("edge", "give exactly one of \"edge\": [a, b] or \"node\": i");
    if (entry.has("edge")) {
      const auto ends = entry.integers("edge");
      for (auto end : ends)
        if (end > max_node)
          entry.expected("edge", "a pair of node ids [a, b] in [0, " + std::to_string(max_node) + "]");
      const auto edge =
          edge_index(topology, static_cast<std::size_t>(ends[0]), static_cast<std::size_t>(ends[1]));
      if (!edge)
        entry.fail("edge", "there is no edge between nodes " + std::to_string(ends[0]) + " and " +
                               std::to_string(ends[1]) + " in this topology");
      targets.push_back(&topology.edges[*edge]);
    } else {
      const auto node = static_cast<std::size_t>(entry.integer("node"));
      if (node > static_cast<std::size_t>(max_node))
        entry.expected("node", "a node id in [0, " + std::to_string(max_node) + "]");
      for (auto& edge : topology.edges)
        if (edge.a == node || edge.b == node) targets.push_back(&edge);
    }
    if (!entry.has("bandwidth") && !entry.has("latency"))
      entry.fail("bandwidth", "an override needs \"bandwidth\" and/or \"latency\"");
    std::optional<double> bandwidth, latency;
    if (entry.has("bandwidth")) bandwidth = entry.bandwidth("bandwidth");
    if (entry.has("latency")) latency = entry.duration("latency");
    entry.finish();
    // Later entries win; an override sets the value outright (no heterogeneity factor on top).
    for (Edge* edge : targets) {
      if (bandwidth) edge->link.bandwidth = *bandwidth;
      if (latency) edge->link.latency = *latency;
    }
  }
}

}  // namespace

void apply_link_variations(Spec& network, std::uint64_t seed, Topology& topology) {
  apply_heterogeneity(network, seed, topology);
  apply_overrides(network, topology);
}

}  // namespace sgdsim::topology
