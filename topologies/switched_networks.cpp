// The physical network kinds whose hosts meet at switches rather than on node-to-node cables: switch (one NIC
// link per host to a switch that computes nothing). Their nodes are the hosts; the switches are routers of
// the topology (vertices after the nodes), so routes between two hosts cross both their links.
#include "common/spec.hpp"
#include "topologies/fat_tree.hpp"
#include "topologies/graph.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::topology {
namespace {

// Nodes 0 … n − 1, each linked to the switch, vertex n.
Topology single_switch(Spec& spec, std::uint64_t, const std::string&) {
  const auto n = static_cast<std::size_t>(spec.integer("nodes"));
  EdgeList edges;
  for (std::size_t i = 0; i < n; ++i) edges.emplace_back(i, n);
  return build_topology("switch", n, edges, {}, {"switch"});
}

const keys::Object& intra_link_keys() {
  static const keys::Object object{
      "intra_link",
      "The link of every device to its host's fabric (NVLink to an NVSwitch, PCIe to a PCIe switch), each "
      "direction.",
      {keys::bandwidth("bandwidth", "Bandwidth of each direction of one device's link.").must_be_given(),
       keys::duration("latency", "Latency of one device's link.").fallback_to("1us")}};
  return object;
}

const keys::Object& cluster_fat_tree_keys() {
  static const keys::Object object{
      "fat_tree",
      "A fat tree of switches joining the hosts (as the kind fat_tree, with hosts as its level 0).",
      fat_tree_keys()};
  return object;
}

// Device g of host h is node h·G + g; host h's fabric is router n + h, the switch (with more than one host)
// router n + H, or the fat tree's switches routers n + H, n + H + 1, … Devices link to their host's fabric
// with the intra-host link; fabrics to the switch, or to their leaf switches, with network.link.
Topology cluster(Spec& spec, std::uint64_t, const std::string&) {
  const auto hosts = static_cast<std::size_t>(spec.integer("hosts"));
  const auto devices = static_cast<std::size_t>(spec.integer("gpus_per_host"));
  if (hosts * devices > static_cast<std::size_t>(max_nodes))
    spec.fail("gpus_per_host", "the cluster has more than " + std::to_string(max_nodes) + " devices");
  if (hosts * devices < 2) spec.fail("gpus_per_host", "a cluster needs at least 2 devices");
  Spec intra = spec.object("intra_link");
  const Link link{intra.bandwidth("bandwidth"), intra.duration("latency")};
  intra.finish();
  const std::size_t n = hosts * devices;
  EdgeList edges;
  std::vector<std::string> routers;
  for (std::size_t h = 0; h < hosts; ++h) routers.push_back("host" + std::to_string(h));
  for (std::size_t i = 0; i < n; ++i) edges.emplace_back(i, n + i / devices);
  const std::size_t intra_edges = edges.size();
  if (spec.has("fat_tree")) {
    Spec tree = spec.object("fat_tree");
    const FatTreeShape shape = read_fat_tree(tree);
    if (shape.bottom() != hosts)
      tree.fail("down", "the fat tree joins " + std::to_string(shape.bottom()) + " hosts (the product of " +
                            "\"down\"), the cluster has " + std::to_string(hosts));
    tree.finish();
    add_fat_tree_switches(shape, n, n + hosts, edges, routers);
  } else if (hosts > 1) {
    routers.push_back("switch");
    for (std::size_t h = 0; h < hosts; ++h) edges.emplace_back(n + h, n + hosts);
  }
  Topology topology = build_topology("cluster", n, edges, {}, std::move(routers));
  topology.gpus_per_host = devices;
  // Edges are sorted by (a, b): the device links come first, in node order.
  for (std::size_t k = 0; k < intra_edges; ++k) topology.edges[k].link = link;
  return topology;
}

const bool registered_switched_networks =
    topologies().add({"switch",
                      "Hosts that each have one link (its NIC; bandwidth and latency from network.link) to "
                      "one switch, which "
                      "computes nothing. A message from host a to host b crosses a's link up and b's link "
                      "down, and shares "
                      "them with every other flow of a and b. A gossip protocol on it needs algorithm.graph.",
                      {keys::integer("nodes", "Number of hosts.").between(2, static_cast<double>(max_nodes))},
                      {}},
                     single_switch) &&
    topologies().add(
        {"cluster",
         "Hosts of gpus_per_host devices each (the nodes; device g of host h is node h·gpus_per_host + g). "
         "Each "
         "device has its own link (intra_link) to its host's fabric (an NVSwitch or PCIe switch, which "
         "computes "
         "nothing), and each host one link (network.link: its NICs together, e.g. 4 × 200 Gb/s = "
         "\"800Gbps\") "
         "to a switch joining the hosts, or to the leaf switches of a fat tree (fat_tree). A gossip protocol "
         "on it needs algorithm.graph.",
         {keys::integer("hosts", "Number of hosts.").between(1, static_cast<double>(max_nodes)),
          keys::integer("gpus_per_host", "Devices (nodes) per host.")
              .between(1, static_cast<double>(max_nodes)),
          keys::object("intra_link", intra_link_keys(), "The link of each device to its host's fabric.")
              .timing_only(),
          keys::object("fat_tree", cluster_fat_tree_keys(),
                       "Hosts on a fat tree instead of one switch: {\"down\": [m₁, …], \"up\": [w₁, …]} as "
                       "the kind fat_tree, whose m₁⋯m_h hosts are this cluster's (consecutive hosts share a "
                       "leaf switch; up-links chosen by destination host, D-mod-k).")
              .computed_default("absent: one switch joins the hosts")
              .timing_only()},
         {"destination_routing"}},
        cluster);

}  // namespace
}  // namespace sgdsim::topology
