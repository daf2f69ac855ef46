// The plan of an emulated network (emulation/fabric.hpp), without root: names under the process's prefix,
// one /30 per link, every command run inside a namespace the plan makes, the shaping at the link's rate.
#include <catch2/catch.hpp>

#include <set>

#include "common/error.hpp"
#include "emulation/emulator.hpp"
#include "emulation/fabric.hpp"

using namespace sgdsim;
using namespace sgdsim::emulation;

TEST_CASE("rates and buckets are spelled for tc") {
  CHECK(tc_rate(12.5e6) == "100000000bit");  // 100 Mbps
  CHECK(tc_rate(1.25e6) == "10000000bit");
  CHECK(tbf_burst_bytes(1.25e6) == 4096);   // at least a few frames
  CHECK(tbf_burst_bytes(125e6) == 125000);  // a millisecond at 1 Gbps
}

TEST_CASE("a ring's plan: a veth pair per link, addresses of one /30, everything inside its namespaces") {
  const FabricPlan plan("sgdsim-42-", 3, {{0, 1, 1.25e6}, {1, 2, 1.25e6}, {0, 2, 12.5e6}}, {});
  CHECK(plan.netns(2) == "sgdsim-42-2");
  CHECK(plan.end(0, 0).address == "10.0.0.1");
  CHECK(plan.end(0, 1).address == "10.0.0.2");
  CHECK(plan.end(2, 1).address == "10.0.0.10");
  CHECK(plan.end(2, 1).interface == "p0");  // node 2's end toward node 0
  CHECK(plan.end(2, 1).netns == "sgdsim-42-2");
  CHECK(link_between(plan, 2, 0) == 2);
  CHECK_THROWS_AS(FabricPlan("x", 2, {}, {"netem"}), InputError);

  std::set<std::string> namespaces;
  std::size_t veths = 0, qdiscs = 0;
  for (const auto& command : plan.setup()) {
    REQUIRE(command.size() >= 4);
    if (command[1] == "netns") {
      CHECK(command[2] == "add");
      namespaces.insert(command[3]);
      continue;
    }
    // Every other command names one of the plan's namespaces: nothing is done in the host's own.
    CHECK(command[1] == "-n");
    CHECK(namespaces.count(command[2]) == 1);
    if (command[0] == "ip" && command.size() > 6 && command[6] == "type") {
      ++veths;
      CHECK(namespaces.count(command.back()) == 1);  // the peer goes straight into the other namespace
    }
    if (command[0] == "tc") {
      ++qdiscs;
      CHECK(command[8] == "tbf");
    }
  }
  CHECK(namespaces.size() == 3);
  CHECK(veths == 3);
  CHECK(qdiscs == 6);  // both directions of every link
}

TEST_CASE("htb shapes with a class at the link's rate") {
  const FabricPlan plan("p-", 2, {{0, 1, 12.5e6}}, {"htb"});
  std::size_t classes = 0;
  for (const auto& command : plan.setup())
    if (command[0] == "tc" && command[3] == "class") {
      ++classes;
      CHECK(std::find(command.begin(), command.end(), "100000000bit") != command.end());
    }
  CHECK(classes == 2);
}
