// The topology family, and the "network" keys that shape the graph's links.
#include "common/error.hpp"
#include "common/spec.hpp"
#include "topologies/graph.hpp"
#include "topologies/links.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::topology {

keys::Registry<TopologyFactory>& topologies() {
  static keys::Registry<TopologyFactory> family(
      "topology", "kind", "The graph of nodes and links (every link is split-duplex).", {}, std::nullopt, {},
      {{"destination_routing",
        "among equally short routes, each destination's is chosen by its host's id (D-mod-k up-link routing, "
        "as SimGrid's fat-tree zone): flows to different hosts spread over parallel links"}});
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
  // A kind may give some edges links of their own (a cluster's intra-host links); the rest get the default.
  for (auto& edge : topology.edges)
    if (edge.link.bandwidth == 0) edge.link = link;
  apply_link_variations(network, seed, topology);
  return topology;
}

keys::Key graph_key() {
  return keys::variant(
             "graph", topologies(),
             "The logical graph the nodes mix over, built like network.topology (its own kinds and "
             "keys, drawn from the seed), without switches; messages between its neighbours are "
             "routed over the physical network.topology and share its links. Its links' bandwidths "
             "are not used. Absent: network.topology, when its nodes are linked directly (not through "
             "switches).")
      .may_be_absent();
}

std::optional<Topology> make_logical_graph(Spec& algorithm, const Topology& network, std::uint64_t seed,
                                           const std::string& base_dir) {
  if (!algorithm.has("graph")) {
    if (network.routers.empty()) return std::nullopt;
    algorithm.fail("graph", "network.topology \"" + network.kind +
                                "\" links no node directly to another (its hosts meet at switches); give the "
                                "graph to mix over, e.g. \"graph\": {\"kind\": \"ring\", \"nodes\": " +
                                std::to_string(network.nodes) + "}");
  }
  Spec spec = algorithm.variant("graph");
  Topology graph = topologies().factory(spec.kind_name())(spec, seed, base_dir);
  if (!graph.routers.empty())
    spec.fail("kind", "\"" + graph.kind + "\" is a physical network of switches, not a graph to mix over");
  if (graph.nodes != network.nodes)
    spec.fail("kind", "the graph has " + std::to_string(graph.nodes) + " nodes, network.topology " +
                          std::to_string(network.nodes) + "; they must be the same nodes");
  spec.finish();
  return graph;
}

keys::Key weights_key() {
  return keys::choice("weights", {"metropolis", "uniform"},
                      "Mixing weights W: \"metropolis\" w_ij = 1/(1 + max(deg_i, deg_j)); \"uniform\" w_ij = "
                      "1/(1 + max degree).")
      .fallback_to("metropolis");
}

}  // namespace sgdsim::topology
