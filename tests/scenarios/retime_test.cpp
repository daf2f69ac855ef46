// `sgdsim retime`: a run recorded under one timing and re-timed under another is byte for byte the live run
// under the other (trace.csv, summary.json without its wall-clock figures, resolved.json, links.csv), for
// every kind of synchronous protocol and collective, several topologies and every kind of timing setting; and
// what cannot be re-timed is refused (exit 2, nothing written). Every run is its own process.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json small(const json& topology, const json& algorithm, const json& model = {{"kind", "softmax"}}) {
  return {
      {"seed", 7},
      {"network", {{"topology", topology}, {"link", {{"bandwidth", "50Mbps"}, {"latency", "200us"}}}}},
      {"compute", {{"host_speed", "2Gf"}}},
      {"data", {{"dataset", "fashion-mnist"}, {"samples", 600}, {"test_samples", 100}, {"batch_size", 8}}},
      {"model", model},
      {"algorithm", algorithm},
      {"eval", {{"every", 4}}}};
}

const json ring6 = {{"kind", "ring"}, {"nodes", 6}};

std::string without_wall_clock(json summary) {
  summary.erase("wall_clock_s");
  summary.erase("peak_rss_mb");
  return summary.dump(2);
}

std::string joined(const std::vector<std::string>& sets) {
  std::string text;
  for (const std::string& set : sets) text += " --set '" + set + "'";
  return text;
}

// Records `scenario` live, re-times it with `sets`, runs it live with `sets`, and compares. Returns the
// re-timed summary.
json check_retime(const std::string& label, const json& scenario, const std::vector<std::string>& sets) {
  const Run recorded = run_scenario(scenario, label + "-recorded", "--record");
  REQUIRE(recorded.exit_code == 0);
  REQUIRE(fs::exists(recorded.directory / "schedule.bin"));
  const Run live = run_scenario(scenario, label + "-live", joined(sets));
  INFO(live.output);
  REQUIRE(live.exit_code == 0);
  const fs::path retimed = recorded.directory.parent_path() / "retimed";
  const auto result = run_command(std::string(SGDSIM_BINARY) + " retime -q " + recorded.directory.string() +
                                  " -o " + retimed.string() + joined(sets));
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK(read_text(retimed / "trace.csv") == live.trace_text);
  CHECK(without_wall_clock(json::parse(read_text(retimed / "summary.json"))) ==
        without_wall_clock(live.summary));
  CHECK(read_text(retimed / "resolved.json") == read_text(live.directory / "resolved.json"));
  CHECK(read_text(retimed / "links.csv") == read_text(live.directory / "links.csv"));
  // The timing did change (else the test would prove nothing).
  CHECK(live.trace_text != recorded.trace_text);
  return json::parse(read_text(retimed / "summary.json"));
}

}  // namespace

TEST_CASE("retime: D-PSGD in both orders on a ring, other bandwidth and latency") {
  for (const char* order : {"adapt_then_combine", "combine_then_adapt"}) {
    check_retime(std::string("dpsgd-") + order,
                 small(ring6, {{"kind", "dpsgd"}, {"steps", 9}, {"lr", 0.05}, {"order", order}}),
                 {"network.link.bandwidth=1Gbps", "network.link.latency=3ms"});
  }
}

TEST_CASE("retime: CHOCO on a torus with mtu framing and a slower host") {
  check_retime(
      "choco-torus",
      small({{"kind", "torus"}, {"dims", {3, 3}}}, {{"kind", "choco"},
                                                    {"steps", 9},
                                                    {"lr", 0.05},
                                                    {"consensus_step", 0.3},
                                                    {"compressor", {{"kind", "qsgd"}, {"levels", 4}}}}),
      {"network.mtu=1500", "network.header_bytes=40", "compute.host_speed=300Mf"});
}

TEST_CASE("retime: SPARQ with a trigger that fires and one that stays silent") {
  for (double c0 : {0.0, 1e9}) {
    check_retime("sparq-" + std::to_string(static_cast<int>(c0 > 0)),
                 small(ring6, {{"kind", "sparq"},
                               {"steps", 12},
                               {"lr", 0.05},
                               {"consensus_step", 0.2},
                               {"local_steps", 2},
                               {"trigger", {{"schedule", "constant"}, {"c0", c0}}},
                               {"compressor", {{"kind", "topk"}, {"fraction", 0.1}}}}),
                 {"network.link.bandwidth=2Mbps",
                  "compute.charge={\"encode\": true, \"decode\": true, "
                  "\"mixing\": true, \"update\": true}"});
  }
}

TEST_CASE("retime: data-parallel with every collective and majority vote") {
  const std::vector<json> algorithms = {
      {{"kind", "data_parallel"},
       {"steps", 8},
       {"lr", 0.05},
       {"collective", "allgather"},
       {"compressor", {{"kind", "qsgd"}, {"levels", 4}}}},
      {{"kind", "data_parallel"}, {"steps", 8}, {"lr", 0.05}, {"collective", "parameter_server"}},
      {{"kind", "data_parallel"}, {"steps", 8}, {"lr", 0.05}, {"collective", "ring_allreduce"}},
      {{"kind", "data_parallel"}, {"steps", 8}, {"lr", 0.05}, {"collective", "recursive_doubling"}},
      {{"kind", "data_parallel"},
       {"steps", 8},
       {"lr", 0.01},
       {"aggregate", "majority_vote"},
       {"compressor", {{"kind", "signsgd"}}}}};
  int k = 0;
  for (const json& algorithm : algorithms) {
    INFO(algorithm.dump());
    check_retime("dp-" + std::to_string(k++), small({{"kind", "ring"}, {"nodes", 4}}, algorithm),
                 {"network.link.bandwidth=10Mbps", "network.model=tcp"});
  }
}

TEST_CASE("retime: the warnings of settings that depart from a paper are the live run's, byte for byte") {
  // PowerSGD without error feedback warns (scenarios/wiring/scenario.cpp): the re-timed summary says the
  // same.
  const json summary = check_retime(
      "powersgd-bare",
      small({{"kind", "ring"}, {"nodes", 4}}, {{"kind", "data_parallel"},
                                               {"steps", 6},
                                               {"lr", 0.05},
                                               {"compressor", {{"kind", "powersgd"}, {"rank", 1}}}}),
      {"network.link.bandwidth=10Mbps"});
  REQUIRE(summary["warnings"].size() == 1);
  CHECK(summary["warnings"][0].get<std::string>().rfind("$.algorithm.memory: compressor \"powersgd\"", 0) ==
        0);
}

TEST_CASE("retime: data-parallel overlapping its buckets with the backward pass") {
  for (const char* collective : {"allgather", "ring_allreduce"}) {
    check_retime(std::string("dp-overlap-") + collective,
                 small({{"kind", "ring"}, {"nodes", 4}},
                       {{"kind", "data_parallel"},
                        {"steps", 8},
                        {"lr", 0.05},
                        {"collective", collective},
                        {"overlap", true},
                        {"bucket_cap", "1kB"}},
                       {{"kind", "mlp"}, {"hidden", {16}}}),
                 {"network.link.bandwidth=10Mbps", "compute.host_speed=300Mf"});
  }
}

TEST_CASE("retime: a random graph with link dynamics, background traffic, stragglers and speed spread") {
  check_retime(
      "random-dynamics",
      small({{"kind", "random_regular"}, {"nodes", 8}, {"degree", 3}},
            {{"kind", "dpsgd"}, {"steps", 8}, {"lr", 0.05}}),
      {R"(network.dynamics=[{"bandwidth": {"kind": "steps", "steps": [[0.001, 0.2], [0.004, 3]]}}])",
       R"(network.background=[{"from": 0, "to": 3, "rate": "20Mbps"}])",
       R"(compute.stragglers=[{"node": 2, "slowdown": 5}, {"profile": {"kind": "random", "mean_normal": "5ms", "mean_episode": "1ms", "value": 0.2}}])",
       R"(compute.speed_spread={"distribution": "lognormal", "spread": 0.5})"});
}

TEST_CASE("retime: another compute profile") {
  check_retime(
      "profile",
      small(ring6, {{"kind", "choco"},
                    {"steps", 8},
                    {"lr", 0.05},
                    {"consensus_step", 0.3},
                    {"compressor", {{"kind", "nuqsgd"}, {"levels", 4}}}}),
      {"compute.memory_bandwidth=1GBps", R"(compute.codecs={"nuqsgd": {"encode": 1e6, "decode": 2e6}})",
       R"(compute.charge={"encode": true, "decode": true, "mixing": true, "update": true})"});
}

namespace {
// LeNet-5 on a ring of 3, a few steps.
json lenet5_ring() {
  json scenario = small({{"kind", "ring"}, {"nodes", 3}}, {{"kind", "dpsgd"}, {"steps", 4}, {"lr", 0.05}},
                        {{"kind", "lenet5"}});
  scenario["data"]["samples"] = 60;
  scenario["data"]["test_samples"] = 20;
  scenario["eval"]["every"] = 2;
  return scenario;
}
}  // namespace

TEST_CASE("retime: a libtorch model") {
  if (std::string(SGDSIM_WRITE_TORCHSCRIPT).empty()) {
    SUCCEED("built without libtorch");
    return;
  }
  check_retime("lenet5", lenet5_ring(), {"network.link.bandwidth=5Mbps", "compute.host_speed=20Gf"});
}

TEST_CASE("retime: a CPU run re-timed under an accelerator profile is the live run under it") {
  // The recorded gradient price carries the model's layers, so the roofline prices it without the model.
  // The compute object is replaced whole: the recorded one pins the CPU's host_speed and prices.
  const std::string a100 = R"(compute={"profile": "a100-amp"})";
  check_retime("softmax-a100",
               small(ring6, {{"kind", "choco"},
                             {"steps", 8},
                             {"lr", 0.05},
                             {"consensus_step", 0.3},
                             {"compressor", {{"kind", "qsgd"}, {"levels", 4}}}}),
               {a100});
  if (std::string(SGDSIM_WRITE_TORCHSCRIPT).empty()) {
    SUCCEED("built without libtorch");
    return;
  }
  const json summary = check_retime("lenet5-a100", lenet5_ring(), {a100});
  CHECK(summary["simulated_time_s"]["gradient"].get<double>() > 0);
}

TEST_CASE("retime: all-reduce collectives recorded on the CPU and re-timed under an accelerator") {
  // Their chunks' work is recorded as work inside the collective's kernel, so the accelerator prices it
  // without a launch per chunk, as a live run under it does (docs/compute.md).
  int k = 0;
  for (const json& collective : {json("ring_allreduce"), json("recursive_doubling"),
                                 json("hierarchical_allreduce"), json{{"kind", "thc"}, {"bits", 4}}}) {
    INFO(collective.dump());
    check_retime("dp-a100-" + std::to_string(k++),
                 small({{"kind", "ring"}, {"nodes", 5}},
                       {{"kind", "data_parallel"}, {"steps", 6}, {"lr", 0.05}, {"collective", collective}}),
                 {R"(compute={"profile": "a100-amp"})"});
  }
}

TEST_CASE("retime: LeNet-5's overlapped buckets, each charged its layers' backward pass") {
  if (std::string(SGDSIM_WRITE_TORCHSCRIPT).empty()) {
    SUCCEED("built without libtorch");
    return;
  }
  // Three buckets (40kB: {fc2, fc3}, {fc1}, {conv1, conv2}), ring all-reduce; the recorded passes carry their
  // layers, so another host speed and an accelerator price them from the schedule alone.
  json scenario = lenet5_ring();
  scenario["algorithm"] = {{"kind", "data_parallel"},        {"steps", 4},      {"lr", 0.05},
                           {"collective", "ring_allreduce"}, {"overlap", true}, {"bucket_cap", "40kB"}};
  check_retime("lenet5-overlap-cpu", scenario, {"network.link.bandwidth=10Mbps", "compute.host_speed=300Mf"});
  const json summary = check_retime("lenet5-overlap-a100", scenario, {R"(compute={"profile": "a100-amp"})"});
  CHECK(summary["simulated_time_s"]["gradient"].get<double>() > 0);
}

TEST_CASE("retime: reads neither the data set nor the model, so the data file may be gone") {
  // Re-timing prices the recorded work from the schedule alone; a run whose data file was removed after
  // recording is re-timed exactly as the live run under the new settings.
  const fs::path data = temporary_folder("retime-data") / "data.svm";
  {
    std::ofstream out(data);
    for (int i = 0; i < 48; ++i) {
      out << i % 3;
      for (int j = 0; j < 6; ++j)
        out << ' ' << j + 1 << ':' << ((i * 7 + j * 3) % 11) / 10.0 + (i % 3 == j % 3);
      out << '\n';
    }
  }
  json scenario = small({{"kind", "ring"}, {"nodes", 4}}, {{"kind", "dpsgd"}, {"steps", 8}, {"lr", 0.05}});
  scenario["data"] = {{"dataset", "libsvm"}, {"path", data.string()}, {"batch_size", 4}};
  const Run recorded = run_scenario(scenario, "nodata-recorded", "--record");
  REQUIRE(recorded.exit_code == 0);
  const Run live = run_scenario(scenario, "nodata-live", "--set network.link.bandwidth=1Mbps");
  REQUIRE(live.exit_code == 0);
  fs::remove(data);
  const fs::path retimed = recorded.directory.parent_path() / "retimed";
  const auto result = run_command(std::string(SGDSIM_BINARY) + " retime -q " + recorded.directory.string() +
                                  " -o " + retimed.string() + " --set network.link.bandwidth=1Mbps");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK(read_text(retimed / "trace.csv") == live.trace_text);
  CHECK(without_wall_clock(json::parse(read_text(retimed / "summary.json"))) ==
        without_wall_clock(live.summary));
  CHECK(live.trace_text != recorded.trace_text);
}

TEST_CASE("retime --force replaces an earlier re-timed folder") {
  const json scenario = small(ring6, {{"kind", "dpsgd"}, {"steps", 4}, {"lr", 0.05}});
  const Run recorded = run_scenario(scenario, "force-recorded", "--record");
  REQUIRE(recorded.exit_code == 0);
  const fs::path retimed = recorded.directory.parent_path() / "retimed";
  const std::string retime =
      std::string(SGDSIM_BINARY) + " retime -q " + recorded.directory.string() + " -o " + retimed.string();
  REQUIRE(run_command(retime + " --set network.link.bandwidth=1Mbps").exit_code == 0);
  const std::string slow = read_text(retimed / "trace.csv");
  const auto again = run_command(retime + " --set network.link.bandwidth=1Gbps --force");
  INFO(again.output);
  REQUIRE(again.exit_code == 0);
  CHECK(read_text(retimed / "trace.csv") != slow);
  CHECK(json::parse(read_text(retimed / "retimed.json"))["set"] == json{"network.link.bandwidth=1Gbps"});
}

TEST_CASE("retime: randomly drawn timing settings") {
  std::mt19937 draw(Catch::rngSeed());
  const json scenario =
      small({{"kind", "torus"}, {"dims", {2, 3}}}, {{"kind", "choco"},
                                                    {"steps", 8},
                                                    {"lr", 0.05},
                                                    {"consensus_step", 0.3},
                                                    {"compressor", {{"kind", "topk"}, {"fraction", 0.2}}}});
  const auto pick = [&draw](std::vector<std::string> choices) {
    return choices[std::uniform_int_distribution<std::size_t>(0, choices.size() - 1)(draw)];
  };
  for (int round = 0; round < 2; ++round) {
    std::vector<std::string> sets = {
        "network.link.bandwidth=" + pick({"1Mbps", "20Mbps", "1Gbps", "40Gbps"}),
        "network.link.latency=" + pick({"0", "10us", "1ms", "30ms"}),
        "network.model=" + pick({"ideal", "tcp"}),
        "network.header_bytes=" + pick({"0", "40", "66"}),
        "compute.host_speed=" + pick({"100Mf", "3Gf", "1Tf"}),
        "compute.speed_spread=" +
            pick({R"({"distribution": "uniform", "spread": 0.5})", R"({"distribution": "none"})"})};
    INFO(joined(sets));
    check_retime("random-" + std::to_string(round), scenario, sets);
  }
}

TEST_CASE("retime refuses what it cannot re-time, and writes nothing") {
  const Run recorded =
      run_scenario(small(ring6, {{"kind", "dpsgd"}, {"steps", 4}, {"lr", 0.05}}), "refusals", "--record");
  REQUIRE(recorded.exit_code == 0);
  const fs::path out = recorded.directory.parent_path() / "retimed";
  const auto retime = [&](const fs::path& from, const std::string& extra) {
    return run_command(std::string(SGDSIM_BINARY) + " retime " + from.string() + " -o " + out.string() + " " +
                       extra);
  };
  SECTION("a learning key") {
    for (const char* set : {"algorithm.lr=0.1", "network.topology.nodes=8", "seed=2",
                            "network.receive_timeout=1s", "algorithm.kind=adpsgd"}) {
      const auto result = retime(recorded.directory, std::string("--set ") + set);
      INFO(result.output);
      CHECK(result.exit_code == 2);
      CHECK(result.output.find("not a timing-only key") != std::string::npos);
    }
  }
  SECTION("a run without a schedule") {
    const Run plain = run_scenario(small(ring6, {{"kind", "dpsgd"}, {"steps", 4}, {"lr", 0.05}}), "plain");
    REQUIRE(plain.exit_code == 0);
    const auto result = retime(plain.directory, "");
    CHECK(result.exit_code == 2);
    CHECK(result.output.find("no schedule") != std::string::npos);
  }
  SECTION("a corrupt, truncated or other-version schedule") {
    const std::string good = read_text(recorded.directory / "schedule.bin");
    const auto with = [&](const std::string& bytes) {
      const fs::path copy = recorded.directory.parent_path() / "copy";
      fs::remove_all(copy);
      fs::copy(recorded.directory, copy);
      std::ofstream(copy / "schedule.bin", std::ios::binary) << bytes;
      return retime(copy, "");
    };
    std::string flipped = good;
    flipped[good.size() / 2] = static_cast<char>(flipped[good.size() / 2] ^ 0x10);
    std::string version = good;
    version[8] = 9;
    for (const auto& [bytes, message] :
         std::vector<std::pair<std::string, std::string>>{{flipped, "checksum mismatch"},
                                                          {good.substr(0, good.size() - 7), "truncated"},
                                                          {version, "format version 9"},
                                                          {"not a schedule", "not an sgdsim schedule"}}) {
      const auto result = with(bytes);
      INFO(result.output);
      CHECK(result.exit_code == 2);
      CHECK(result.output.find(message) != std::string::npos);
    }
  }
  CHECK_FALSE(fs::exists(out));
}
