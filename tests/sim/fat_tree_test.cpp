// Hosts on a fat tree (down [4, 4], up [1, 2]: 4 leaf switches of 4 hosts, each leaf with one up-link to each
// of 2 spines): routes between leaves cross four links, the up-link is chosen by destination (D-mod-k: the
// spine of destination t is t mod 2), and flows that share an up-link share its bandwidth, against hand
// formulas (the ideal model: latency + bytes / fair share).
#include <catch2/catch.hpp>

#include "common/spec.hpp"
#include "tests/sim/sim_support.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;

namespace {

constexpr double bandwidth = 12.5e6;  // bytes/s (100 Mbps), every link and direction
constexpr double latency = 50e-6;     // s, each link

const char* const fat_tree_16 = R"({"topology": {"kind": "fat_tree", "down": [4, 4], "up": [1, 2]},
                                    "link": {"bandwidth": "100Mbps", "latency": "50us"}})";

// A cluster of 4 hosts of 2 devices (nodes 2h, 2h + 1 on host h) whose hosts meet on the fat tree
// down [2, 2], up [1, 2]: hosts 0, 1 on leaf 0, hosts 2, 3 on leaf 1, each leaf with an up-link to each of 2
// spines. Device links are 1 Gbps / 1 us.
const char* const cluster_16 = R"({"topology": {"kind": "cluster", "hosts": 4, "gpus_per_host": 2,
                                     "intra_link": {"bandwidth": "1Gbps", "latency": "1us"},
                                     "fat_tree": {"down": [2, 2], "up": [1, 2]}},
                                   "link": {"bandwidth": "100Mbps", "latency": "50us"}})";
constexpr double intra_bandwidth = 125e6, intra_latency = 1e-6;

topology::Topology network(const char* text) {
  const json value = json::parse(text);
  json resolved;
  static const keys::Object keys{"network", "", topology::network_keys()};
  Spec network(value, "test", "$.network", resolved, keys);
  topology::Topology t = topology::make_topology(network, 1, ".");
  network.finish();
  return t;
}

// Each sender in `flows` sends `bytes` to its receiver at time 0; the time each receiver has its message.
std::vector<double> deliver(const std::vector<std::pair<std::size_t, std::size_t>>& flows, std::size_t bytes,
                            const char* on = fat_tree_16) {
  return timed_run(network(on), {}, [&](std::size_t node, protocols::Port& port, std::vector<double>& t) {
    for (const auto& [from, to] : flows)
      if (from == node) port.send(to, protocols::Bytes(bytes, 1));
    for (const auto& [from, to] : flows)
      if (to == node) port.receive(from), t[node] = port.now();
  });
}

}  // namespace

TEST_CASE("fat tree: inside a leaf a message crosses 2 links, between leaves 4") {
  const std::size_t bytes = 100000;
  auto out = deliver({{0, 3}, {5, 14}}, bytes);
  CHECK(relative_error(out[3], 2 * latency + bytes / bandwidth) < 1e-9);
  CHECK(relative_error(out[14], 4 * latency + bytes / bandwidth) < 1e-9);
}

TEST_CASE("fat tree: the up-link is chosen by destination, so two flows to hosts 4 and 5 do not meet") {
  // 4 → spine 0, 5 → spine 1: each flow has its own up-link (a fewest-hop route with a fixed tie rule would
  // send both over one spine, at half the bandwidth each).
  const std::size_t bytes = 100000;
  auto out = deliver({{0, 4}, {1, 5}}, bytes);
  CHECK(relative_error(out[4], 4 * latency + bytes / bandwidth) < 1e-9);
  CHECK(relative_error(out[5], 4 * latency + bytes / bandwidth) < 1e-9);
  // 4 and 6 are both reached through spine 0: the leaf's up-link to it carries both flows.
  out = deliver({{0, 4}, {1, 6}}, bytes);
  CHECK(relative_error(out[4], 4 * latency + 2.0 * bytes / bandwidth) < 1e-9);
  CHECK(relative_error(out[6], 4 * latency + 2.0 * bytes / bandwidth) < 1e-9);
}

TEST_CASE("fat tree: a leaf sending to the next leaf at once is 2:1 oversubscribed") {
  // Hosts 0–3 to hosts 4–7: four flows over the leaf's two up-links, two flows each (destinations 4, 6 on
  // spine 0, 5, 7 on spine 1), each at half the bandwidth.
  const std::size_t bytes = 60000;
  auto out = deliver({{0, 4}, {1, 5}, {2, 6}, {3, 7}}, bytes);
  for (std::size_t host = 4; host < 8; ++host)
    CHECK(relative_error(out[host], 4 * latency + 2.0 * bytes / bandwidth) < 1e-9);
}

TEST_CASE("fat tree: a ring step in id order crosses each up-link once, at full bandwidth") {
  // i → i + 1 (mod 16): 12 flows inside leaves, 4 between consecutive leaves (3 → 4, 7 → 8, 11 → 12, 15 → 0),
  // each on a different leaf's up-link.
  const std::size_t n = 16, bytes = 40000;
  std::vector<std::pair<std::size_t, std::size_t>> ring;
  for (std::size_t i = 0; i < n; ++i) ring.emplace_back(i, (i + 1) % n);
  auto out = deliver(ring, bytes);
  for (std::size_t host = 0; host < n; ++host) {
    INFO(host);
    const double hops = host % 4 == 0 ? 4 : 2;
    CHECK(relative_error(out[host], hops * latency + bytes / bandwidth) < 1e-9);
  }
}

TEST_CASE("cluster on a fat tree: a device's message crosses its device links and the tree's links") {
  const topology::Topology t = network(cluster_16);
  CHECK(t.nodes == 8);
  CHECK(t.routers.size() == 4 + 2 + 2);  // host fabrics, leaves, spines
  CHECK(topology::diameter(t) == 6);     // device, NIC up to the leaf and the spine, and down again
  const std::size_t bytes = 100000;
  // Same host: two device links. Hosts 0 and 1 share leaf 0: two NIC links more. Hosts 0 and 2: four.
  auto out = deliver({{0, 1}, {2, 3}}, bytes, cluster_16);
  CHECK(relative_error(out[1], 2 * intra_latency + bytes / intra_bandwidth) < 1e-9);
  out = deliver({{0, 2}, {3, 4}}, bytes, cluster_16);  // no link in common
  CHECK(relative_error(out[2], 2 * intra_latency + 2 * latency + bytes / bandwidth) < 1e-9);
  CHECK(relative_error(out[4], 2 * intra_latency + 4 * latency + bytes / bandwidth) < 1e-9);
}

TEST_CASE("cluster on a fat tree: the up-link is chosen by the destination's host") {
  // Devices 4 and 6 are on hosts 2 and 3: spines 0 and 1, so flows to them from leaf 0 do not meet. (By
  // device id both would take spine 0 and share its up-link.)
  const std::size_t bytes = 100000;
  auto out = deliver({{0, 4}, {2, 6}}, bytes, cluster_16);
  CHECK(relative_error(out[4], 2 * intra_latency + 4 * latency + bytes / bandwidth) < 1e-9);
  CHECK(relative_error(out[6], 2 * intra_latency + 4 * latency + bytes / bandwidth) < 1e-9);
  // Devices 4 and 5 share host 2 and its route: its leaf's up-link to spine 0 carries both flows.
  out = deliver({{0, 4}, {2, 5}}, bytes, cluster_16);
  CHECK(relative_error(out[4], 2 * intra_latency + 4 * latency + 2.0 * bytes / bandwidth) < 1e-9);
}

TEST_CASE("cluster on a fat tree: the tree must join exactly the cluster's hosts") {
  const json value = json::parse(R"({"topology": {"kind": "cluster", "hosts": 3, "gpus_per_host": 2,
                                       "intra_link": {"bandwidth": "1Gbps"},
                                       "fat_tree": {"down": [2, 2], "up": [1, 2]}}})");
  json resolved;
  static const keys::Object keys{"network", "", topology::network_keys()};
  Spec spec(value, "test.json", "$.network", resolved, keys);
  CHECK_THROWS_WITH(topology::make_topology(spec, 1, "."),
                    Catch::Contains("test.json: $.network.topology.fat_tree.down") &&
                        Catch::Contains("joins 4 hosts") && Catch::Contains("has 3"));
}
