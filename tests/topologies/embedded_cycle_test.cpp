// The cycles a ring all-reduce is laid along: through every node once, each step along an edge.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/topologies/make.hpp"
#include "topologies/embedded_cycle.hpp"

using namespace sgdsim;
using sgdsim::testing::make;

namespace {

// Every node once, and each consecutive pair (the last and the first too) joined by an edge.
void check_cycle(const topology::Topology& t, const std::vector<std::size_t>& cycle) {
  REQUIRE(cycle.size() == t.nodes);
  std::vector<bool> seen(t.nodes, false);
  for (std::size_t p = 0; p < cycle.size(); ++p) {
    REQUIRE(cycle[p] < t.nodes);
    CHECK_FALSE(seen[cycle[p]]);
    seen[cycle[p]] = true;
    INFO("step " << cycle[p] << " -> " << cycle[(p + 1) % t.nodes]);
    CHECK(topology::edge_index(t, cycle[p], cycle[(p + 1) % t.nodes]).has_value());
  }
}

}  // namespace

TEST_CASE("every 2-D and 3-D torus has a snake cycle along its links") {
  for (std::size_t r = 2; r <= 7; ++r)
    for (std::size_t c = 2; c <= 7; ++c) {
      INFO(r << "x" << c);
      const auto t = make(R"({"topology": {"kind": "torus", "dims": [)" + std::to_string(r) + ", " +
                          std::to_string(c) + "]}}");
      check_cycle(t, topology::embedded_cycle(t));
    }
  for (const char* dims : {"[2, 2, 2]", "[3, 3, 3]", "[4, 3, 5]", "[3, 4, 4]", "[5, 5, 2]", "[4, 8, 8]"}) {
    INFO(dims);
    const auto t = make(std::string(R"({"topology": {"kind": "torus", "dims": )") + dims + "}}");
    check_cycle(t, topology::embedded_cycle(t));
  }
}

TEST_CASE("a 4x4 torus snakes along its rows and returns up column 0") {
  const auto t = make(R"({"topology": {"kind": "torus", "dims": [4, 4]}})");
  CHECK(topology::embedded_cycle(t) ==
        std::vector<std::size_t>{0, 1, 2, 3, 7, 6, 5, 9, 10, 11, 15, 14, 13, 12, 8, 4});
}

TEST_CASE("rings and complete graphs keep the ids, a hypercube follows a Gray code") {
  for (const char* network :
       {R"({"topology": {"kind": "ring", "nodes": 9}})", R"({"topology": {"kind": "complete", "nodes": 6}})",
        R"({"topology": {"kind": "ring", "nodes": 2}})"}) {
    const auto t = make(network);
    std::vector<std::size_t> ids(t.nodes);
    for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = i;
    CHECK(topology::embedded_cycle(t) == ids);
  }
  const auto cube = make(R"({"topology": {"kind": "hypercube", "dim": 5}})");
  check_cycle(cube, topology::embedded_cycle(cube));
}

TEST_CASE("random graphs get a cycle from the search, a star or a tree has none") {
  for (const char* network : {R"({"topology": {"kind": "random_regular", "nodes": 16, "degree": 3}})",
                              R"({"topology": {"kind": "random_regular", "nodes": 64, "degree": 3}})",
                              R"({"topology": {"kind": "random_regular", "nodes": 1000, "degree": 4}})",
                              R"({"topology": {"kind": "erdos_renyi", "nodes": 200, "p": 0.1}})"})
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      INFO(network << " seed " << seed);
      const auto t = make(network, seed);
      check_cycle(t, topology::embedded_cycle(t));
    }
  CHECK(topology::embedded_cycle(make(R"({"topology": {"kind": "star", "nodes": 5}})")).empty());
}
