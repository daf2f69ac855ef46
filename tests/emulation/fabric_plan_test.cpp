// The plan of an emulated network (emulation/fabric.hpp), without root: names under the process's prefix,
// one /30 per link, every command run inside a namespace the plan makes, the shaping at the link's rate.
#include <catch2/catch.hpp>

#include <algorithm>
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
  const FabricPlan plan("sgdsim-42-", 3, {{0, 1, 1.25e6}, {1, 2, 1.25e6}, {0, 2, 12.5e6}}, {"tbf"});
  CHECK(plan.netns(2) == "sgdsim-42-2");
  CHECK(plan.end(0, 0).address == "10.0.0.1");
  CHECK(plan.end(0, 1).address == "10.0.0.2");
  CHECK(plan.end(2, 1).address == "10.0.0.10");
  CHECK(plan.end(2, 1).interface == "p0");  // node 2's end toward node 0
  CHECK(plan.end(2, 1).netns == "sgdsim-42-2");
  CHECK(plan.address_for(2, 0) == "10.0.0.9");  // node 0's end of the link 0-2
  CHECK(plan.address_for(0, 2) == "10.0.0.10");
  CHECK_THROWS_AS(FabricPlan("x", 3, {{0, 1, 1e6}}, {}).address_for(0, 2), InputError);
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

TEST_CASE("by default (htb-ack) small TCP segments leave before bulk data, both in the link's rate") {
  const FabricPlan plan("p-", 2, {{0, 1, 12.5e6}}, {});
  CHECK(plan.options().qdisc == "htb-ack");
  std::size_t roots = 0, classes = 0, filters = 0;
  for (const auto& command : plan.setup()) {
    if (command[0] != "tc") continue;
    const auto has = [&](const std::string& word) {
      return std::find(command.begin(), command.end(), word) != command.end();
    };
    if (command[3] == "qdisc") {
      ++roots;
      CHECK(has("htb"));
      CHECK(command.back() == "20");  // unmatched packets go to the bulk class
    }
    if (command[3] == "class") {
      ++classes;
      CHECK(has("100000000bit"));                     // every class may use the whole rate, none more
      if (has("1:10")) CHECK(command.back() == "0");  // the small segments' class is served first
      if (has("1:20")) CHECK(command.back() == "1");
    }
    if (command[3] == "filter") {
      ++filters;
      CHECK(has("u32"));
      CHECK(command.back() == "1:10");
    }
  }
  CHECK(roots == 2);  // both ends of the link
  CHECK(classes == 6);
  CHECK(filters == 2);
}

TEST_CASE("a switch's plan: a bridge in its own namespace, one shaped veth per NIC, one subnet") {
  const FabricPlan plan = FabricPlan::switched("sgdsim-42-", {1.25e6, 12.5e6, 1.25e6}, {"tbf"});
  CHECK(plan.is_switched());
  CHECK(plan.netns(3) == "sgdsim-42-sw");
  CHECK(plan.address_for(0, 2) == "10.128.0.3");
  CHECK(plan.address_for(1, 0) == "10.128.0.1");
  CHECK(plan.end(1, 0).netns == "sgdsim-42-1");
  CHECK(plan.end(1, 1).netns == "sgdsim-42-sw");
  CHECK(plan.end(1, 1).interface == "p1");
  std::set<std::string> namespaces, enslaved;
  std::size_t veths = 0, qdiscs = 0, bridges = 0;
  for (const auto& command : plan.setup()) {
    if (command[1] == "netns") {
      namespaces.insert(command[3]);
      continue;
    }
    CHECK(command[1] == "-n");
    CHECK(namespaces.count(command[2]) == 1);
    if (command.size() > 6 && command[6] == "type") {
      if (command[7] == "bridge") {
        ++bridges;
        CHECK(command[2] == "sgdsim-42-sw");
      }
      if (command[7] == "veth") {
        ++veths;
        CHECK(command.back() == "sgdsim-42-sw");
      }
    }
    if (command.size() > 6 && command[6] == "master") enslaved.insert(command[5]);
    if (command[0] == "tc") {
      ++qdiscs;
      // Both directions of a NIC at its rate: node 1's and its port's at 100 Mbps.
      const bool node1 = command[6] == "sw" ? command[2] == "sgdsim-42-1" : command[6] == "p1";
      CHECK(command[10] == (node1 ? "100000000bit" : "10000000bit"));
    }
  }
  CHECK(namespaces.size() == 4);
  CHECK(bridges == 1);
  CHECK(veths == 3);
  CHECK(enslaved == std::set<std::string>{"p0", "p1", "p2"});
  CHECK(qdiscs == 6);
}
