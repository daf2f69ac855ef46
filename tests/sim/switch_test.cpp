// Hosts behind a switch: every message crosses its sender's NIC link up and its receiver's down, and the
// flows of one host share its NIC (the ideal model's fair sharing), against hand formulas.
#include <catch2/catch.hpp>

#include "tests/sim/sim_support.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;

namespace {

constexpr double bandwidth = 12.5e6;  // bytes/s (100 Mbps), each NIC link and direction
constexpr double latency = 50e-6;     // s, each link

topology::Topology switch_of(std::size_t n) {
  topology::EdgeList edges;
  for (std::size_t i = 0; i < n; ++i) edges.emplace_back(i, n);
  return topology::build_topology("switch", n, edges, {bandwidth, latency}, {"switch"});
}

}  // namespace

TEST_CASE("switch: one message crosses two links, 2 latency + B/bandwidth") {
  const std::size_t bytes = 100000;
  auto out =
      timed_run(switch_of(4), {}, [&](std::size_t node, protocols::Port& port, std::vector<double>& t) {
        if (node == 0) port.send(3, protocols::Bytes(bytes, 1));
        if (node == 3) port.receive(0), t[3] = port.now();
      });
  CHECK(relative_error(out[3], 2 * latency + bytes / bandwidth) < 1e-9);
}

TEST_CASE("switch: a ring gossip puts two flows on every NIC, each at half its bandwidth") {
  // Every node sends B bytes to both ring neighbours at once: its uplink carries two flows, and so does the
  // downlink of every receiver; on a physical ring the two would take separate cables (latency + B/bw).
  const std::size_t n = 8, bytes = 40000;
  sim::NetworkOptions options;
  options.host_speed = 1e30;
  auto out =
      timed_run(switch_of(n), options, [&](std::size_t node, protocols::Port& port, std::vector<double>& t) {
        const std::size_t left = (node + n - 1) % n, right = (node + 1) % n;
        port.send(left, protocols::Bytes(bytes));
        port.send(right, protocols::Bytes(bytes));
        port.receive(left);
        port.receive(right);
        port.wait_sends();
        t[node] = port.now();
      });
  for (std::size_t node = 0; node < n; ++node)
    CHECK(relative_error(out[node], 2 * latency + 2.0 * bytes / bandwidth) < 1e-9);
}

TEST_CASE("switch: a ring all-reduce step puts one flow on every NIC, at its full bandwidth") {
  const std::size_t n = 8, bytes = 40000;
  auto out =
      timed_run(switch_of(n), {}, [&](std::size_t node, protocols::Port& port, std::vector<double>& t) {
        port.send((node + 1) % n, protocols::Bytes(bytes));
        port.receive((node + n - 1) % n);
        port.wait_sends();
        t[node] = port.now();
      });
  for (std::size_t node = 0; node < n; ++node)
    CHECK(relative_error(out[node], 2 * latency + static_cast<double>(bytes) / bandwidth) < 1e-9);
}

TEST_CASE("switch: an incast of k senders shares the receiver's downlink k ways") {
  const std::size_t n = 5, bytes = 30000;
  auto out =
      timed_run(switch_of(n), {}, [&](std::size_t node, protocols::Port& port, std::vector<double>& t) {
        if (node != 0) port.send(0, protocols::Bytes(bytes));
        if (node == 0) {
          for (std::size_t j = 1; j < n; ++j) port.receive(j);
          t[0] = port.now();
        }
      });
  CHECK(relative_error(out[0], 2 * latency + (n - 1.0) * bytes / bandwidth) < 1e-9);
}
