// Every key declares whether it affects learning or only timing. The list of timing-only keys is written out
// here, so that adding one (or forgetting the flag on a new timing key) is a visible decision in review.
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "common/key_schema.hpp"
#include "common/keys.hpp"
#include "scenarios/wiring/scenario.hpp"
#include "tests/support/runs.hpp"

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
      "network.topology[cluster].intra_link",
      "network.topology[cluster].fat_tree",
      "network.link",
      "network.heterogeneity",
      "network.overrides",
      "network.model",
      "network.header_bytes",
      "network.mtu",
      "network.calibration",
      "network.dynamics",
      "network.background",
      "compute.host_speed",
      "compute.profile",
      "compute.memory_bandwidth",
      "compute.codecs",
      "compute.charge",
      "compute.speed_spread",
      "compute.stragglers",
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

namespace {

// A run where every timing knob can show: 4 nodes on a ring exchanging fp32 models (D-PSGD), with framing
// headers so that the segment size matters.
json timing_base() {
  return json::parse(R"({
    "seed": 2,
    "network": { "topology": { "kind": "ring", "nodes": 4 },
                 "link": { "bandwidth": "10Mbps", "latency": "1ms" }, "header_bytes": 40 },
    "compute": { "host_speed": "10Mf" },
    "data": { "dataset": "synthetic", "kind": "logistic", "samples": 200, "features": 400, "batch_size": 8 },
    "model": { "kind": "logistic" },
    "algorithm": { "kind": "dpsgd", "steps": 5, "lr": 0.1 },
    "eval": { "every": 5 }
  })");
}

// One change of a timing-only key and the way it must move the simulated time.
struct Knob {
  std::string key;  // as the timing-only list spells it
  std::function<void(json& scenario, const std::filesystem::path& folder)> change;
  int direction;  // +1 slower, −1 faster
};

std::vector<Knob> knobs() {
  auto set = [](const char* section, const char* key, json value) {
    return [=](json& s, const std::filesystem::path&) { s[section][key] = value; };
  };
  return {
      // The same logical ring over a 2 × 2 cluster whose device links are slower than the ring's links.
      {"network.topology[cluster].intra_link",
       [](json& s, const std::filesystem::path&) {
         s["network"]["topology"] = {{"kind", "cluster"},
                                     {"hosts", 2},
                                     {"gpus_per_host", 2},
                                     {"intra_link", {{"bandwidth", "1Mbps"}, {"latency", "1ms"}}}};
         s["algorithm"]["graph"] = {{"kind", "ring"}, {"nodes", 4}};
       },
       +1},
      // The same logical ring over 4 hosts each alone on a leaf switch under one spine: every message crosses
      // four of the ring's links instead of one.
      {"network.topology[cluster].fat_tree",
       [](json& s, const std::filesystem::path&) {
         s["network"]["topology"] = {{"kind", "cluster"},
                                     {"hosts", 4},
                                     {"gpus_per_host", 1},
                                     {"intra_link", {{"bandwidth", "10Gbps"}}},
                                     {"fat_tree", {{"down", {1, 4}}, {"up", {1, 1}}}}};
         s["algorithm"]["graph"] = {{"kind", "ring"}, {"nodes", 4}};
       },
       +1},
      {"network.link", set("network", "link", {{"bandwidth", "1Mbps"}, {"latency", "1ms"}}), +1},
      {"network.heterogeneity", set("network", "heterogeneity", {{"bandwidth", 0.9}, {"latency", 0.9}}), +1},
      {"network.overrides", set("network", "overrides", json::parse(R"([{"node": 1, "latency": "50ms"}])")),
       +1},
      {"network.model", set("network", "model", "tcp"), +1},
      {"network.header_bytes", set("network", "header_bytes", 100000), +1},
      {"network.mtu", set("network", "mtu", 100), +1},
      {"network.calibration",
       set("network", "calibration",
           json::parse(R"({"segments": [{"from_bytes": 0, "latency_factor": 3, "bandwidth_factor": 0.5}]})")),
       +1},
      {"network.dynamics",
       set("network", "dynamics", json::parse(R"([{"bandwidth": {"kind": "steps", "steps": [[0, 0.1]]}}])")),
       +1},
      {"network.background", set("network", "background", json::parse(R"([{"from": 0, "to": 1,
                                                                            "fraction": 0.4},
                                                                           {"from": 1, "to": 0,
                                                                            "fraction": 0.4}])")),
       +1},
      {"compute.host_speed", set("compute", "host_speed", "1Mf"), +1},
      {"compute.profile",
       [](json& s, const std::filesystem::path& folder) {
         json profile = json::parse(
             testing::read_text(std::filesystem::path(SGDSIM_SOURCE_DIR) / "profiles/default.json"));
         for (auto& entry : profile["codecs"])
           for (const char* part : {"encode", "decode"}) entry[part] = entry[part].get<double>() * 1e-4;
         std::ofstream(folder / "slow-profile.json") << profile.dump(2);
         s["compute"]["profile"] = (folder / "slow-profile.json").string();
       },
       +1},
      {"compute.memory_bandwidth", set("compute", "memory_bandwidth", "10MBps"), +1},
      {"compute.codecs", set("compute", "codecs", {{"none", {{"encode", 1e4}, {"decode", 1e4}}}}), +1},
      {"compute.charge", set("compute", "charge", {{"gradient", false}, {"encode", false}}), -1},
      {"compute.speed_spread", set("compute", "speed_spread", {{"distribution", "uniform"}, {"spread", 0.9}}),
       +1},
      {"compute.stragglers", set("compute", "stragglers", json::parse(R"([{"node": 1, "slowdown": 10}])")),
       +1},
  };
}

}  // namespace

TEST_CASE("every timing-only key moves the simulated time the way it should") {
  std::vector<std::string> declared;
  std::set<const void*> seen;
  collect(scenarios::scenario_keys().keys, "", seen, declared);
  std::vector<std::string> tested;
  for (const Knob& knob : knobs()) tested.push_back(knob.key);
  // A new timing key needs its entry in knobs(): a change and the direction it moves the time.
  REQUIRE(tested == declared);

  const testing::Run base = testing::run_scenario(timing_base(), "knob-base");
  INFO(base.output);
  REQUIRE(base.exit_code == 0);
  const double time = base.summary["simulated_time_s"]["total"].get<double>();
  for (const Knob& knob : knobs()) {
    INFO(knob.key);
    json scenario = timing_base();
    const auto folder = testing::temporary_folder("knob-files");
    knob.change(scenario, folder);
    const testing::Run changed = testing::run_scenario(scenario, "knob");
    INFO(changed.output);
    REQUIRE(changed.exit_code == 0);
    const double moved = changed.summary["simulated_time_s"]["total"].get<double>();
    if (knob.direction > 0)
      CHECK(moved > time * 1.01);
    else
      CHECK(moved < time * 0.99);
    // Timing only: the same learning, bit for bit.
    CHECK(changed.trace.rows.back().at("train_loss") == base.trace.rows.back().at("train_loss"));
  }
}
