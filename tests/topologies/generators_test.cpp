// Graph families: counts, degrees, connectivity, diameter, determinism and the checks on bad input.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "common/error.hpp"
#include "tests/topologies/make.hpp"
#include "topologies/graph.hpp"

using sgdsim::InputError;
using sgdsim::testing::edge_string;
using sgdsim::testing::make;
using namespace sgdsim::topology;

namespace {

std::pair<std::size_t, std::size_t> degree_range(const Topology& t) {
  std::size_t lo = SIZE_MAX, hi = 0;
  for (std::size_t i = 0; i < t.nodes; ++i) lo = std::min(lo, t.degree(i)), hi = std::max(hi, t.degree(i));
  return {lo, hi};
}

bool connected(const Topology& t) {
  const auto label = components(t);
  return std::all_of(label.begin(), label.end(), [](std::size_t c) { return c == 0; });
}

// The structural invariants every Topology promises.
void check_well_formed(const Topology& t) {
  std::set<std::pair<std::size_t, std::size_t>> seen;
  for (std::size_t k = 0; k < t.edges.size(); ++k) {
    const auto& e = t.edges[k];
    REQUIRE(e.a < e.b);
    REQUIRE(e.b < t.nodes);
    REQUIRE(seen.insert({e.a, e.b}).second);
    if (k > 0) REQUIRE(std::make_pair(t.edges[k - 1].a, t.edges[k - 1].b) < std::make_pair(e.a, e.b));
  }
  std::size_t ends = 0;
  for (std::size_t i = 0; i < t.nodes; ++i) {
    REQUIRE(std::is_sorted(t.neighbors[i].begin(), t.neighbors[i].end()));
    for (auto j : t.neighbors[i]) REQUIRE(seen.count({std::min(i, j), std::max(i, j)}) == 1);
    ends += t.degree(i);
  }
  REQUIRE(ends == 2 * t.edges.size());
  REQUIRE(connected(t));
}

}  // namespace

TEST_CASE("ring has n nodes and n edges and degree 2 and diameter n/2 and a ring of 2 is one edge") {
  for (std::size_t n : {3, 8, 9, 16}) {
    auto t = make(R"({"topology": {"kind": "ring", "nodes": )" + std::to_string(n) + "}}");
    check_well_formed(t);
    CHECK(t.nodes == n);
    CHECK(t.edges.size() == n);
    CHECK(degree_range(t) == std::make_pair<std::size_t, std::size_t>(2, 2));
    CHECK(diameter(t) == n / 2);
  }
  auto two = make(R"({"topology": {"kind": "ring", "nodes": 2}})");
  check_well_formed(two);
  CHECK(two.edges.size() == 1);
  CHECK(diameter(two) == 1);
}

TEST_CASE("torus in 2-D and 3-D wraps around and size-2 dimensions give single edges") {
  auto t = make(R"({"topology": {"kind": "torus", "dims": [4, 4]}})");
  check_well_formed(t);
  CHECK(t.nodes == 16);
  CHECK(t.edges.size() == 32);
  CHECK(degree_range(t) == std::make_pair<std::size_t, std::size_t>(4, 4));
  CHECK(diameter(t) == 4);
  // Row-major: node 0 = (0, 0) neighbours (0, 1), (0, 3), (1, 0), (3, 0).
  CHECK(t.neighbors[0] == std::vector<std::size_t>{1, 3, 4, 12});

  auto cube = make(R"({"topology": {"kind": "torus", "dims": [3, 4, 5]}})");
  check_well_formed(cube);
  CHECK(cube.nodes == 60);
  CHECK(cube.edges.size() == 180);
  CHECK(degree_range(cube) == std::make_pair<std::size_t, std::size_t>(6, 6));
  CHECK(diameter(cube) == 1 + 2 + 2);

  auto thin = make(R"({"topology": {"kind": "torus", "dims": [2, 3]}})");
  check_well_formed(thin);
  CHECK(thin.edges.size() == 3 + 6);
  CHECK(degree_range(thin) == std::make_pair<std::size_t, std::size_t>(3, 3));
}

TEST_CASE("complete and star and hypercube counts") {
  auto k = make(R"({"topology": {"kind": "complete", "nodes": 7}})");
  check_well_formed(k);
  CHECK(k.edges.size() == 21);
  CHECK(diameter(k) == 1);
  auto single = make(R"({"topology": {"kind": "complete", "nodes": 1}})");
  CHECK(single.nodes == 1);
  CHECK(single.edges.empty());
  CHECK(diameter(single) == 0);

  auto s = make(R"({"topology": {"kind": "star", "nodes": 6}})");
  check_well_formed(s);
  CHECK(s.edges.size() == 5);
  CHECK(s.degree(0) == 5);
  CHECK(degree_range(s) == std::make_pair<std::size_t, std::size_t>(1, 5));
  CHECK(diameter(s) == 2);

  auto h = make(R"({"topology": {"kind": "hypercube", "dim": 5}})");
  check_well_formed(h);
  CHECK(h.nodes == 32);
  CHECK(h.edges.size() == 80);
  CHECK(degree_range(h) == std::make_pair<std::size_t, std::size_t>(5, 5));
  CHECK(diameter(h) == 5);
}

TEST_CASE("erdos_renyi is connected and deterministic from the seed with about p n(n-1)/2 edges") {
  const std::string spec = R"({"topology": {"kind": "erdos_renyi", "nodes": 200, "p": 0.05}})";
  auto a = make(spec, 7), b = make(spec, 7), c = make(spec, 8);
  check_well_formed(a);
  CHECK(edge_string(a) == edge_string(b));
  CHECK(edge_string(a) != edge_string(c));
  const double expected = 0.05 * 200 * 199 / 2;  // 995, standard deviation about 31
  CHECK(std::abs(static_cast<double>(a.edges.size()) - expected) < 5 * 31);
  // Sparse enough that single draws are often disconnected: redrawing still yields a connected graph.
  for (std::uint64_t seed = 0; seed < 5; ++seed)
    check_well_formed(make(R"({"topology": {"kind": "erdos_renyi", "nodes": 60, "p": 0.06}})", seed));
  auto full = make(R"({"topology": {"kind": "erdos_renyi", "nodes": 10, "p": 1}})");
  CHECK(full.edges.size() == 45);
}

TEST_CASE("random_regular is simple and connected and regular and deterministic") {
  for (auto [n, d] : std::vector<std::pair<std::size_t, std::size_t>>{
           {10, 3}, {50, 4}, {101, 2}, {12, 9}, {9, 8}, {2, 1}}) {
    const std::string spec = R"({"topology": {"kind": "random_regular", "nodes": )" + std::to_string(n) +
                             R"(, "degree": )" + std::to_string(d) + "}}";
    auto t = make(spec, 3);
    check_well_formed(t);
    CHECK(t.nodes == n);
    CHECK(t.edges.size() == n * d / 2);
    CHECK(degree_range(t) == std::make_pair(d, d));
    CHECK(edge_string(t) == edge_string(make(spec, 3)));
  }
  const std::string spec = R"({"topology": {"kind": "random_regular", "nodes": 40, "degree": 3}})";
  CHECK(edge_string(make(spec, 1)) != edge_string(make(spec, 2)));
}

TEST_CASE("bad topologies are InputErrors naming the JSON path") {
  auto fails = [](const std::string& text, const std::string& fragment) {
    INFO(text);
    try {
      make(text);
      FAIL("no error");
    } catch (const InputError& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(fragment) != std::string::npos);
    }
  };
  fails(R"({})", "$.network.topology");
  fails(R"({"topology": {"kind": "rign", "nodes": 4}})", "did you mean \"ring\"");
  fails(R"({"topology": {"kind": "ring", "nodes": 1}})", "$.network.topology.nodes");
  fails(R"({"topology": {"kind": "ring", "nodes": 4, "node": 3}})", "unknown key \"node\"");
  fails(R"({"topology": {"kind": "torus", "dims": [16]}})", "$.network.topology.dims");
  fails(R"({"topology": {"kind": "torus", "dims": [4, 1]}})", "$.network.topology.dims");
  fails(R"({"topology": {"kind": "erdos_renyi", "nodes": 10, "p": 0}})", "$.network.topology.p");
  fails(R"({"topology": {"kind": "erdos_renyi", "nodes": 10, "p": 1.5}})", "$.network.topology.p");
  // Far below the connectivity threshold: refused before drawing (268 isolated nodes expected).
  fails(R"({"topology": {"kind": "erdos_renyi", "nodes": 400, "p": 0.001}})", "almost never connected");
  fails(R"({"topology": {"kind": "random_regular", "nodes": 7, "degree": 3}})", "must be even");
  fails(R"({"topology": {"kind": "random_regular", "nodes": 7, "degree": 7}})", "below the number of nodes");
  fails(R"({"topology": {"kind": "random_regular", "nodes": 8, "degree": 1}})", "never connected");
  fails(R"({"topology": {"kind": "hypercube", "dim": 0}})", "$.network.topology.dim");
  fails(R"({"topology": {"kind": "star", "nodes": "8"}})", "$.network.topology.nodes");
  fails(R"({"topology": {"kind": "ring", "nodes": 4}, "link": {"bandwith": "1Gbps"}})",
        "did you mean \"bandwidth\"");
  fails(R"({"topology": {"kind": "ring", "nodes": 4}, "link": {"bandwidth": "fast"}})",
        "$.network.link.bandwidth");
}
