// Every protocol that averages through a collective lays it on the physical network (network.topology),
// never on the logical graph or on no network at all: a ring all-reduce on a switch follows the switch's
// embedded cycle (resolved.json says "embedded"), and a hierarchical all-reduce sees the cluster's hosts.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <utility>

#include "scenarios/wiring/scenario.hpp"
#include "tests/protocols/cooperative_network.hpp"

using namespace sgdsim;
using nlohmann::json;

namespace {

json scenario(const json& topology, const std::string& kind, const std::string& collective) {
  json s = {{"seed", 3},
            {"network", {{"topology", topology}}},
            {"data",
             {{"dataset", "synthetic"},
              {"kind", "logistic"},
              {"samples", 16},
              {"features", 6},
              {"partition", "iid"},
              {"batch_size", 2}}},
            {"model", {{"kind", "mlp"}, {"hidden", {5}}}},
            {"eval", {{"every", 1}}}};
  s["algorithm"] = {{"kind", kind}, {"steps", 2}, {"lr", 0.1}, {"collective", {{"kind", collective}}}};
  return s;
}

// The protocol kinds that take a collective.
std::vector<std::string> kinds_with_collective() {
  std::vector<std::string> names;
  for (const keys::Kind* kind : protocols::protocols().kinds())
    if (kind->find("collective")) names.push_back(kind->name);
  return names;
}

}  // namespace

TEST_CASE("every protocol with a collective lays its ring on the physical network") {
  const std::vector<std::string> kinds = kinds_with_collective();
  REQUIRE(kinds.size() >= 4);  // data_parallel, diloco, onebit_adam, powersgd at least
  const json switch4 = {{"kind", "switch"}, {"nodes", 4}};
  for (const std::string& kind : kinds) {
    INFO(kind);
    const scenarios::Scenario run(scenario(switch4, kind, "ring_allreduce"), "test", ".");
    // Without the physical network the collective finds no cycle and falls back to the ids.
    CHECK(run.resolved().at("algorithm").at("collective").at("ring") == "embedded");
  }
}

TEST_CASE("every protocol with a collective runs a hierarchical all-reduce over the cluster's hosts") {
  // Two hosts of two devices: devices 0, 1 on host 0 and 2, 3 on host 1. Inside a host the devices swap
  // halves; across hosts device g talks only to device g of the other host. A collective that does not see
  // the cluster takes every node for its own host: a ring of ids, 0 → 1 → 2 → 3 → 0.
  const json cluster = {{"kind", "cluster"},
                        {"hosts", 2},
                        {"gpus_per_host", 2},
                        {"intra_link", {{"bandwidth", "100Gbps"}, {"latency", "1us"}}}};
  using Pairs = std::set<std::pair<std::size_t, std::size_t>>;
  const Pairs hierarchical = {{0, 1}, {1, 0}, {2, 3}, {3, 2}, {0, 2}, {2, 0}, {1, 3}, {3, 1}};
  for (const std::string& kind : kinds_with_collective()) {
    INFO(kind);
    json document = scenario(cluster, kind, "hierarchical_allreduce");
    // Only the collective's messages: 1-bit Adam's compressed stage has its own pattern.
    if (protocols::protocols().find(kind)->find("warmup_steps"))
      document["algorithm"]["warmup_steps"] = document["algorithm"]["steps"];
    scenarios::Scenario run(document, "test", ".");
    testing::CooperativeNetwork network(4);
    network.run(run.protocol());
    CHECK(network.pairs() == hierarchical);
  }
}
