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

topology::Topology fat_tree() {
  const json value = json::parse(R"({"topology": {"kind": "fat_tree", "down": [4, 4], "up": [1, 2]},
                                     "link": {"bandwidth": "100Mbps", "latency": "50us"}})");
  json resolved;
  static const keys::Object keys{"network", "", topology::network_keys()};
  Spec network(value, "test", "$.network", resolved, keys);
  topology::Topology t = topology::make_topology(network, 1, ".");
  network.finish();
  return t;
}

// Each sender in `flows` sends `bytes` to its receiver at time 0; the time each receiver has its message.
std::vector<double> deliver(const std::vector<std::pair<std::size_t, std::size_t>>& flows,
                            std::size_t bytes) {
  return timed_run(fat_tree(), {}, [&](std::size_t node, protocols::Port& port, std::vector<double>& t) {
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
