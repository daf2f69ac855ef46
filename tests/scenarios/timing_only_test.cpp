// Every key declares whether it affects learning or only timing. The list of timing-only keys is written out
// here, so that adding one (or forgetting the flag on a new timing key) is a visible decision in review.
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "common/key_schema.hpp"
#include "common/keys.hpp"
#include "scenarios/wiring/scenario.hpp"

using namespace sgdsim;
using nlohmann::json;

namespace {

// The dotted paths of the keys declared timing-only, outermost only (everything inside one is timing-only
// too). Keys of a Family's kinds appear as "path[kind].key", its common keys as "path[*].key".
void collect(const std::vector<keys::Key>& declared, const std::string& prefix, std::set<const void*>& seen,
             std::vector<std::string>& out) {
  for (const keys::Key& key : declared) {
    const std::string path = prefix.empty() ? key.name : prefix + "." + key.name;
    if (key.only_timing) {
      out.push_back(path);
      continue;
    }
    if (key.object && seen.insert(key.object).second) collect(key.object->keys, path, seen, out);
    if (key.family && seen.insert(key.family).second) {
      collect(key.family->common(), path + "[*]", seen, out);
      for (const keys::Kind* kind : key.family->kinds())
        collect(kind->keys, path + "[" + kind->name + "]", seen, out);
    }
  }
}

}  // namespace

TEST_CASE("the timing-only keys are exactly these") {
  std::vector<std::string> found;
  std::set<const void*> seen;
  collect(scenarios::scenario_keys().keys, "", seen, found);
  const std::vector<std::string> expected = {
      "network.link",         "network.heterogeneity", "network.overrides",        "network.model",
      "network.header_bytes", "network.mtu",           "network.dynamics",         "network.background",
      "compute.host_speed",   "compute.profile",       "compute.memory_bandwidth", "compute.codecs",
      "compute.charge",       "compute.speed_spread",  "compute.stragglers",
  };
  CHECK(found == expected);
}

TEST_CASE("timing_only answers for a dotted path and everything inside a timing-only key") {
  const keys::Object& root = scenarios::scenario_keys();
  const json document = json::parse(R"({
    "network": {"topology": {"kind": "ring", "nodes": 4}, "overrides": [{"node": 1, "latency": "1ms"}]},
    "algorithm": {"kind": "choco", "compressor": {"kind": "qsgd"}, "lr": 0.1}
  })");
  for (const char* path :
       {"network.link", "network.link.bandwidth", "network.overrides.0.latency", "network.overrides.0",
        "network.mtu", "network.header_bytes", "network.model", "network.dynamics", "network.background",
        "compute.host_speed", "compute.charge.decode", "compute.codecs", "compute.profile",
        "compute.stragglers", "compute.speed_spread.spread"}) {
    INFO(path);
    CHECK(keys::timing_only(root, document, path));
  }
  // Learning-affecting: failures and the receive timeout change what is learned, and so does the graph.
  for (const char* path :
       {"network.failures", "network.receive_timeout", "compute.failures", "network.topology",
        "network.topology.nodes", "seed", "algorithm.compressor.levels", "algorithm.lr", "data", "eval.every",
        "no.such.key", "network.link.bandwidth.x"}) {
    INFO(path);
    CHECK_FALSE(keys::timing_only(root, document, path));
  }
}

TEST_CASE("the reference and the schema mark the timing-only keys") {
  const keys::Object& root = scenarios::scenario_keys();
  const std::string reference = keys::key_reference(root, "T", "");
  CHECK(reference.find("| Bandwidth and latency of every link, unless varied below. *Timing only.* |") !=
        std::string::npos);
  CHECK(reference.find("| Link failures. |") != std::string::npos);
  const json schema = keys::json_schema(root, "T");
  const json& network = schema["definitions"]["network"]["properties"];
  CHECK(network["link"].value("x-timing-only", false));
  CHECK(network["mtu"].value("x-timing-only", false));
  CHECK_FALSE(network["failures"].contains("x-timing-only"));
  CHECK_FALSE(network["topology"].contains("x-timing-only"));
}
