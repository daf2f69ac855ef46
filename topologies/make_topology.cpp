// The topology family, and the "network" keys that shape the graph's links.
#include "common/error.hpp"
#include "common/spec.hpp"
#include "topologies/links.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::topology {

keys::Registry<TopologyFactory>& topologies() {
  static keys::Registry<TopologyFactory> family("topology", "kind",
                                                "The graph of nodes and links (every link is split-duplex).");
  return family;
}

std::vector<keys::Key> network_keys() {
  return {
      keys::variant("topology", topologies(), "The graph.").must_be_given(),
      keys::object("link", link_keys(), "Bandwidth and latency of every link, unless varied below.")
          .timing_only(),
      keys::object("heterogeneity", heterogeneity_keys(),
                   "Random spread of every link's bandwidth and latency.")
          .timing_only(),
      keys::objects("overrides", override_keys(),
                    "Per-edge or per-node bandwidth/latency, applied in order after heterogeneity.")
          .timing_only(),
  };
}

Topology make_topology(Spec& network, std::uint64_t seed, const std::string& base_dir) {
  Spec spec = network.variant("topology");
  Topology topology = topologies().factory(spec.kind_name())(spec, seed, base_dir);
  spec.finish();
  const Link link = read_default_link(network);
  for (auto& edge : topology.edges) edge.link = link;
  apply_link_variations(network, seed, topology);
  return topology;
}

keys::Key weights_key() {
  return keys::choice("weights", {"metropolis", "uniform"},
                      "Mixing weights W: \"metropolis\" w_ij = 1/(1 + max(deg_i, deg_j)); \"uniform\" w_ij = "
                      "1/(1 + max degree).")
      .fallback_to("metropolis");
}

}  // namespace sgdsim::topology
