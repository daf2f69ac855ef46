// The fat_tree kind: the extended generalized fat tree's vertices and edges, counted by hand.
#include <catch2/catch.hpp>

#include <set>

#include "common/error.hpp"
#include "tests/topologies/make.hpp"
#include "topologies/embedded_cycle.hpp"
#include "topologies/graph.hpp"

using namespace sgdsim;
using sgdsim::testing::make;

namespace {
std::string fat_tree(const std::string& down, const std::string& up) {
  return R"({"topology": {"kind": "fat_tree", "down": )" + down + R"(, "up": )" + up +
         R"(}, "link": {"bandwidth": "10Gbps", "latency": "1us"}})";
}
}  // namespace

TEST_CASE("fat tree down [4, 4], up [1, 2]: 16 hosts, 4 leaves of 4 hosts with 2 up-links, 2 spines") {
  const topology::Topology t = make(fat_tree("[4, 4]", "[1, 2]"));
  CHECK(t.kind == "fat_tree");
  CHECK(t.nodes == 16);
  REQUIRE(t.routers.size() == 6);
  CHECK(t.routers[0] == "switch1.0");
  CHECK(t.routers[4] == "switch2.0");
  CHECK(t.edges.size() == 16 + 4 * 2);
  for (std::size_t host = 0; host < 16; ++host)
    CHECK(t.neighbors[host] == std::vector<std::size_t>{16 + host / 4});  // hosts 4ℓ … 4ℓ + 3 on leaf ℓ
  for (std::size_t leaf = 16; leaf < 20; ++leaf) {
    CHECK(t.degree(leaf) == 6);
    CHECK(t.neighbors[leaf][4] == 20);
    CHECK(t.neighbors[leaf][5] == 21);
  }
  for (std::size_t spine = 20; spine < 22; ++spine)
    CHECK(t.neighbors[spine] == std::vector<std::size_t>{16, 17, 18, 19});
  CHECK(topology::describe_components(t).empty());
  // A ring all-reduce keeps the ids: the hosts of a leaf are consecutive.
  CHECK(topology::embedded_cycle(t).front() == 0);
}

TEST_CASE("fat tree of three levels: down [2, 2, 2], up [1, 2, 2] (a 2-ary 3-tree)") {
  const topology::Topology t = make(fat_tree("[2, 2, 2]", "[1, 2, 2]"));
  // Level sizes m₂m₃w₁ = 4, m₃w₁w₂ = 4, w₁w₂w₃ = 4; edges 8·1 + 4·2 + 4·2.
  CHECK(t.nodes == 8);
  CHECK(t.routers.size() == 12);
  CHECK(t.edges.size() == 24);
  // Every top switch reaches every host: a k-ary n-tree has full bisection.
  for (std::size_t top = 8 + 8; top < 8 + 12; ++top) CHECK(t.degree(top) == 2);
  CHECK(topology::describe_components(t).empty());
  CHECK(topology::diameter(t) == 6);
}

TEST_CASE("fat tree hosts with two NICs: up [2, 1] gives each host two leaf switches") {
  const topology::Topology t = make(fat_tree("[4, 2]", "[2, 1]"));
  CHECK(t.nodes == 8);
  CHECK(t.routers.size() == 2 * 2 + 2);  // leaves m₂w₁ = 4, tops w₁w₂ = 2
  for (std::size_t host = 0; host < 8; ++host) CHECK(t.degree(host) == 2);
}

TEST_CASE("fat tree errors name the key") {
  CHECK_THROWS_WITH(make(fat_tree("[4, 4]", "[1]")),
                    Catch::Contains("$.network.topology.up") && Catch::Contains("one count per level"));
  CHECK_THROWS_WITH(make(fat_tree("[1]", "[1]")),
                    Catch::Contains("$.network.topology.down") && Catch::Contains("at least 2 hosts"));
  CHECK_THROWS_WITH(make(fat_tree("[1000, 1000]", "[1, 1]")),
                    Catch::Contains("$.network.topology.down") && Catch::Contains("100000 hosts"));
}
