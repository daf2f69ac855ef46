// Simulated time on the `ideal` model is the textbook formula; `tcp` differs as SimGrid documents.
#include <catch2/catch.hpp>

#include "sim/framing.hpp"
#include "tests/sim/sim_support.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;

namespace {

constexpr double bandwidth = 12.5e6;  // bytes/s (100 Mbps)
constexpr double latency = 500e-6;    // s

}  // namespace

TEST_CASE("ideal: one message of B bytes over h hops takes h latency + B/bandwidth") {
  const std::size_t bytes = 123457;
  auto path = path_topology(5, {bandwidth, latency});
  for (std::size_t hops = 1; hops <= 4; ++hops) {
    auto out = timed_run(path, {}, [&](std::size_t node, protocols::Port& port, std::vector<double>& times) {
      if (node == 0) port.send(hops, protocols::Bytes(bytes, 7));
      if (node == hops) {
        auto message = port.receive(0);
        REQUIRE(message);
        REQUIRE(message->size() == bytes);
        times[node] = port.now();
      }
    });
    const double expected = static_cast<double>(hops) * latency + static_cast<double>(bytes) / bandwidth;
    INFO("hops " << hops << " measured " << out[hops] << " expected " << expected);
    CHECK(relative_error(out[hops], expected) < 1e-9);
  }
}

TEST_CASE("a message of 0 bytes still pays the route's latency, on both models") {
  auto path = path_topology(3, {bandwidth, latency});
  for (const char* model : {"ideal", "tcp"}) {
    sim::NetworkOptions options;
    options.model = model;
    auto out =
        timed_run(path, options, [&](std::size_t node, protocols::Port& port, std::vector<double>& times) {
          if (node == 0) port.send(2, protocols::Bytes{});
          if (node == 2) {
            auto message = port.receive(0);
            REQUIRE(message);
            REQUIRE(message->empty());
            times[node] = port.now();
          }
        });
    INFO(model << ": measured " << out[2]);
    // tcp multiplies latencies by its latency factor (13.01): more than the two hops' latencies, never 0.
    // (SimGrid is told one byte: see simulated_size in sim/simgrid_port.cpp.)
    if (std::string(model) == "ideal")
      CHECK(relative_error(out[2], 2 * latency + 1 / bandwidth) < 1e-9);
    else
      CHECK(out[2] > 2 * latency);
  }
}

TEST_CASE("ideal: heterogeneous links sum their latencies and the slowest link sets the rate") {
  auto path = path_topology(4, {bandwidth, latency});
  path.edges[0].link = {4 * bandwidth, 1e-3};
  path.edges[1].link = {bandwidth / 2, 20e-6};
  path.edges[2].link = {bandwidth, 3e-3};
  const std::size_t bytes = 50000;
  auto out = timed_run(path, {}, [&](std::size_t node, protocols::Port& port, std::vector<double>& times) {
    if (node == 0) port.send(3, protocols::Bytes(bytes));
    if (node == 3) port.receive(0), times[3] = port.now();
  });
  const double expected = 1e-3 + 20e-6 + 3e-3 + static_cast<double>(bytes) / (bandwidth / 2);
  CHECK(relative_error(out[3], expected) < 1e-9);
}

TEST_CASE("ideal: multi-hop routes on a torus take the fewest hops") {
  topology::EdgeList edges = topology::torus_edges({4, 4});
  auto torus = topology::build_topology("torus", 16, edges, {bandwidth, latency});
  const std::size_t bytes = 10000;
  // Node 10 = (2, 2) is 4 hops from node 0 = (0, 0); node 5 = (1, 1) is 2 hops.
  auto out = timed_run(torus, {}, [&](std::size_t node, protocols::Port& port, std::vector<double>& times) {
    if (node == 0) port.send(10, protocols::Bytes(bytes)), port.send(5, protocols::Bytes(bytes));
    if (node == 10 || node == 5) port.receive(0), times[node] = port.now();
  });
  // The two routes may share the first link out of node 0; ask only for the 2-hop one to be exact when alone.
  CHECK(out[10] >= 4 * latency + static_cast<double>(bytes) / bandwidth * (1 - 1e-9));
  auto alone = timed_run(torus, {}, [&](std::size_t node, protocols::Port& port, std::vector<double>& times) {
    if (node == 0) port.send(10, protocols::Bytes(bytes));
    if (node == 10) port.receive(0), times[node] = port.now();
  });
  CHECK(relative_error(alone[10], 4 * latency + static_cast<double>(bytes) / bandwidth) < 1e-9);
}

TEST_CASE("ideal: two flows sharing one link each get half of it") {
  // 0 - 1 - 2 with 3 - 1: flows 0->2 and 3->2 share the 1->2 half of link 1-2.
  auto t = topology::build_topology("tee", 4, {{0, 1}, {1, 2}, {1, 3}}, {bandwidth, latency});
  const std::size_t bytes = 200000;
  auto out = timed_run(t, {}, [&](std::size_t node, protocols::Port& port, std::vector<double>& times) {
    if (node == 0 || node == 3) port.send(2, protocols::Bytes(bytes));
    if (node == 2) {
      port.receive(0), times[0] = port.now();
      port.receive(3), times[3] = port.now();
    }
  });
  const double shared = 2 * latency + static_cast<double>(bytes) / (bandwidth / 2);
  CHECK(relative_error(out[0], shared) < 1e-9);
  CHECK(relative_error(out[3], shared) < 1e-9);
}

TEST_CASE("ideal: a ring exchange of 4d bytes with both neighbours takes latency + 4d/bandwidth") {
  const std::size_t d = 1000, header = 0;
  auto ring = topology::build_topology("ring", 8, topology::ring_edges(8), {bandwidth, latency});
  sim::NetworkOptions options;
  options.host_speed = 1e30;  // compute is free
  options.header_bytes = header;
  auto out =
      timed_run(ring, options, [&](std::size_t node, protocols::Port& port, std::vector<double>& times) {
        port.charge(flops(1e6));
        const std::size_t left = (node + 7) % 8, right = (node + 1) % 8;
        port.send(left, protocols::Bytes(4 * d));
        port.send(right, protocols::Bytes(4 * d));
        port.receive(left);
        port.receive(right);
        port.wait_sends();
        times[node] = port.now();
      });
  // Split-duplex links: the two directions of an edge do not share bandwidth.
  for (std::size_t node = 0; node < 8; ++node)
    CHECK(relative_error(out[node], latency + 4.0 * d / bandwidth) < 1e-9);
}

TEST_CASE("header bytes are charged and compute takes flops/speed") {
  const std::size_t payload = 4000, header = 1500;
  auto path = path_topology(2, {bandwidth, latency});
  sim::NetworkOptions options;
  options.header_bytes = header;
  options.host_speed = 2e9;
  auto out =
      timed_run(path, options, [&](std::size_t node, protocols::Port& port, std::vector<double>& times) {
        if (node == 0) {
          port.charge(flops(3e6));
          port.send(1, protocols::Bytes(payload));
          port.wait_sends();
          times[0] = static_cast<double>(port.counters().wire_bytes * 1000 + port.counters().payload_bytes) +
                     static_cast<double>(port.counters().messages) * 1e9;
        } else {
          port.receive(0);
          times[1] = port.now();
        }
      });
  CHECK(relative_error(out[1], 3e6 / 2e9 + latency + static_cast<double>(payload + header) / bandwidth) <
        1e-9);
  CHECK(out[0] == 1e9 + static_cast<double>((payload + header) * 1000 + payload));
}

TEST_CASE("tcp is slower than ideal by the latency factor and the 0.97 bandwidth factor") {
  const double bw = 1e9 / 8, lat = 50e-6;
  const std::size_t bytes = 1000000;
  auto path = path_topology(2, {bw, lat});
  auto run = [&](const std::string& model) {
    sim::NetworkOptions options;
    options.model = model;
    return timed_run(path, options, [&](std::size_t node, protocols::Port& port, std::vector<double>& times) {
      if (node == 0)
        port.send(1, protocols::Bytes(bytes));
      else
        port.receive(0), times[1] = port.now();
    })[1];
  };
  const double ideal = run("ideal"), tcp = run("tcp");
  CHECK(relative_error(ideal, lat + bytes / bw) < 1e-9);
  CHECK(tcp > ideal * 1.05);
  // LV08: latency x 13.01, bandwidth x 0.97 (plus a little reverse cross-traffic): 8.898 ms here.
  CHECK(relative_error(tcp, 13.01 * lat + bytes / (0.97 * bw)) < 0.02);
}

TEST_CASE("segment headers: payload + max(1, ceil(payload / (mtu - header))) * header") {
  CHECK(sim::wire_size(1000, 40, 0) == 1040);  // mtu 0: one header per message
  CHECK(sim::wire_size(0, 40, 0) == 40);
  CHECK(sim::wire_size(0, 78, 1538) == 78);  // an empty message is still one segment
  CHECK(sim::wire_size(1, 78, 1538) == 79);
  CHECK(sim::wire_size(1460, 78, 1538) == 1538);  // one full Ethernet frame slot
  CHECK(sim::wire_size(1461, 78, 1538) == 1461 + 2 * 78);
  CHECK(sim::wire_size(4000000, 78, 1538) == 4000000 + 2740 * 78);  // ceil(4e6 / 1460) = 2740
  CHECK(sim::wire_size(123, 0, 1500) == 123);
  CHECK_THROWS(sim::wire_size(10, 78, 78));
  // The one statement of the rule, which the scenario reader reports at $.network.mtu.
  CHECK(sim::framing_problem(78, 78).value_or("").find("must exceed header_bytes 78") != std::string::npos);
  CHECK_FALSE(sim::framing_problem(78, 79));
  CHECK_FALSE(sim::framing_problem(78, 0));
}

TEST_CASE("ideal: with segment headers one message takes latency + wire size / bandwidth") {
  auto path = path_topology(2, {bandwidth, latency});
  sim::NetworkOptions options;
  options.header_bytes = 78;
  options.mtu = 1538;
  for (std::size_t payload : {std::size_t{0}, std::size_t{1460}, std::size_t{100000}}) {
    auto out =
        timed_run(path, options, [&](std::size_t node, protocols::Port& port, std::vector<double>& values) {
          if (node == 0) {
            port.send(1, protocols::Bytes(payload, 1));
            port.wait_sends();
            values[0] = static_cast<double>(port.counters().wire_bytes);
          } else {
            port.receive(0);
            values[1] = port.now();
          }
        });
    const double wire = static_cast<double>(sim::wire_size(payload, 78, 1538));
    INFO("payload " << payload);
    CHECK(out[0] == wire);
    CHECK(relative_error(out[1], latency + wire / bandwidth) < 1e-9);
  }
}

TEST_CASE("a calibration's factors set a message's time by its size on both models") {
  sim::NetworkOptions options;
  options.calibration.segments = {{0, 2.0, 0.5}, {10000, 3.0, 0.8}, {1000000, 1.0, 0.95}};
  auto path = path_topology(3, {bandwidth, latency});
  const std::vector<std::size_t> sizes{100, 9999, 10000, 500000, 1000000, 3000000};
  for (const char* model : {"ideal", "tcp"}) {
    options.model = model;
    for (std::size_t bytes : sizes) {
      auto out =
          timed_run(path, options, [&](std::size_t node, protocols::Port& port, std::vector<double>& times) {
            if (node == 0) port.send(2, protocols::Bytes(bytes));
            if (node == 2) port.receive(0), times[2] = port.now();
          });
      const sim::CalibrationSegment& s = options.calibration.at(static_cast<double>(bytes));
      // Two hops: twice the latency, scaled; the bandwidth a flow may use, scaled.
      const double expected =
          2 * latency * s.latency_factor + static_cast<double>(bytes) / (s.bandwidth_factor * bandwidth);
      INFO(model << " " << bytes << " bytes: measured " << out[2] << " expected " << expected);
      if (std::string(model) == "ideal")
        CHECK(relative_error(out[2], expected) < 1e-9);
      else  // tcp's reverse cross-traffic takes a few percent of the links
        CHECK(relative_error(out[2], expected) < 0.1);
    }
  }
}
