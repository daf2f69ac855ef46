// Per-edge bandwidth and latency: defaults, heterogeneity law, overrides.
#include <catch2/catch.hpp>

#include "common/error.hpp"
#include "tests/topologies/make.hpp"

using sgdsim::InputError;
using sgdsim::testing::make;

TEST_CASE("link defaults and unit strings reach every edge") {
  auto t = make(
      R"({"topology": {"kind": "ring", "nodes": 5}, "link": {"bandwidth": "1Gbps", "latency": "50us"}})");
  for (const auto& e : t.edges) {
    CHECK(e.link.bandwidth == Approx(1e9 / 8).epsilon(1e-15));
    CHECK(e.link.latency == Approx(50e-6).epsilon(1e-15));
  }
  auto d = make(R"({"topology": {"kind": "ring", "nodes": 5}})");
  CHECK(d.edges[0].link.bandwidth == Approx(100e6 / 8).epsilon(1e-15));  // documented default 100Mbps
  CHECK(d.edges[0].link.latency == Approx(500e-6).epsilon(1e-15));       // and 500us
}

TEST_CASE("heterogeneity factors are uniform in 1-s to 1+s and reproducible and leave the graph unchanged") {
  const std::string spec = R"({"topology": {"kind": "erdos_renyi", "nodes": 40, "p": 0.2},
    "link": {"bandwidth": "80Mbps", "latency": "1ms"}, "heterogeneity": {"bandwidth": 0.5, "latency": 0.25}})";
  auto a = make(spec, 5), b = make(spec, 5);
  auto plain = make(R"({"topology": {"kind": "erdos_renyi", "nodes": 40, "p": 0.2}})", 5);
  REQUIRE(sgdsim::testing::edge_string(a) == sgdsim::testing::edge_string(plain));
  double low = 2, high = 0, sum = 0;
  for (std::size_t k = 0; k < a.edges.size(); ++k) {
    const double fb = a.edges[k].link.bandwidth / 10e6, fl = a.edges[k].link.latency / 1e-3;
    CHECK(fb >= 0.5);
    CHECK(fb <= 1.5);
    CHECK(fl >= 0.75);
    CHECK(fl <= 1.25);
    CHECK(a.edges[k].link.bandwidth == b.edges[k].link.bandwidth);
    CHECK(a.edges[k].link.latency == b.edges[k].link.latency);
    low = std::min(low, fb), high = std::max(high, fb), sum += fb;
  }
  // About 150 edges: the factors really spread over the interval and average near 1.
  CHECK(low < 0.6);
  CHECK(high > 1.4);
  CHECK(sum / static_cast<double>(a.edges.size()) == Approx(1.0).margin(0.1));
  // Latency spread alone leaves bandwidths at the default (the two draws per edge are independent).
  auto only_latency =
      make(R"({"topology": {"kind": "ring", "nodes": 6}, "heterogeneity": {"latency": 0.5}})");
  for (const auto& e : only_latency.edges) CHECK(e.link.bandwidth == Approx(100e6 / 8).epsilon(1e-15));
}

TEST_CASE("overrides set one edge or all edges of a node and later entries win") {
  auto t =
      make(R"({"topology": {"kind": "ring", "nodes": 6}, "link": {"bandwidth": "1Gbps", "latency": "1ms"},
    "heterogeneity": {"bandwidth": 0.5},
    "overrides": [{"node": 3, "latency": "10ms"}, {"edge": [1, 0], "bandwidth": "8MBps"}, {"edge": [3, 4], "latency": "2ms"}]})");
  for (const auto& e : t.edges) {
    INFO(e.a << "-" << e.b);
    if (e.a == 0 && e.b == 1)
      CHECK(e.link.bandwidth == 8e6);
    else
      CHECK(e.link.bandwidth != 8e6);
    if (e.a == 2 && e.b == 3)
      CHECK(e.link.latency == Approx(10e-3));
    else if (e.a == 3 && e.b == 4)
      CHECK(e.link.latency == Approx(2e-3));
    else
      CHECK(e.link.latency == Approx(1e-3));
  }
  auto fails = [](const std::string& overrides, const std::string& fragment) {
    try {
      make(R"({"topology": {"kind": "ring", "nodes": 6}, "overrides": )" + overrides + "}");
      FAIL("no error for " << overrides);
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains(fragment));
    }
  };
  fails(R"([{"edge": [0, 2], "bandwidth": "1Gbps"}])", "no edge between nodes 0 and 2");
  fails(R"([{"edge": [0, 9], "bandwidth": "1Gbps"}])", "$.network.overrides[0].edge");
  fails(R"([{"edge": [0, 1, 2], "bandwidth": "1Gbps"}])", "$.network.overrides[0].edge");
  fails(R"([{"edge": [0, 1]}])", "needs \"bandwidth\" and/or \"latency\"");
  fails(R"([{"edge": [0, 1], "node": 1, "latency": "1ms"}])", "exactly one of");
  fails(R"([{"edge": [0, 1], "latncy": "1ms"}])", "$.network.overrides[0]");
  fails(R"([{"edge": [0, 1], "bandwidth": "1Gbps", "colour": 1}])", "unknown key \"colour\"");
  fails(R"({"edge": [0, 1]})", "$.network.overrides");
}

TEST_CASE("edge_index finds the edge between two nodes in either order, and nothing between non-neighbours") {
  const auto t = make(R"({"topology": {"kind": "ring", "nodes": 6}})");
  for (std::size_t k = 0; k < t.edges.size(); ++k) {
    CHECK(sgdsim::topology::edge_index(t, t.edges[k].a, t.edges[k].b) == k);
    CHECK(sgdsim::topology::edge_index(t, t.edges[k].b, t.edges[k].a) == k);
  }
  CHECK_FALSE(sgdsim::topology::edge_index(t, 0, 3));
  CHECK_FALSE(sgdsim::topology::edge_index(t, 2, 2));
  CHECK_FALSE(sgdsim::topology::edge_index(t, 0, 60));
}
