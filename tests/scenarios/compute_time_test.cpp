// Honest simulated time: every kind of a node's work is charged from the compute profile, and on a network
// whose formula is exact (the `ideal` model) a step's simulated time is the sum of the charged parts plus the
// transfer, to 1e-9. Turning a part off removes exactly its share.
#include <catch2/catch.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "tests/support/child.hpp"
#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr int features = 40;
constexpr double host_speed = 2e9;        // flop/s
constexpr double memory_bandwidth = 4e9;  // bytes/s
constexpr double encode_speed = 5e7;      // coordinates/s of "none"
constexpr double decode_speed = 8e7;
constexpr double bandwidth = 1e6;  // bytes/s
constexpr double latency = 2e-4;   // s
constexpr int steps = 5;

// Two nodes exchanging fp32 models with D-PSGD, one sample per step: every cost is known in closed form.
json two_node_dpsgd(const json& charge) {
  return {{"seed", 3},
          {"network",
           {{"topology", {{"kind", "complete"}, {"nodes", 2}}},
            {"link", {{"bandwidth", "1MBps"}, {"latency", "200us"}}},  // bandwidth and latency, in units
            {"model", "ideal"}}},
          {"compute",
           {{"host_speed", "2Gf"},  // host_speed and memory_bandwidth, in units
            {"memory_bandwidth", "4GBps"},
            {"codecs", {{"none", {{"encode", encode_speed}, {"decode", decode_speed}}}}},
            {"charge", charge}}},
          {"data",
           {{"dataset", "synthetic"},
            {"kind", "linear"},
            {"samples", 50},
            {"features", features},
            {"batch_size", 1}}},
          {"model", {{"kind", "linear"}}},
          {"algorithm", {{"kind", "dpsgd"}, {"steps", steps}, {"lr", 0.01}}},
          {"eval", {{"every", 1}}}};
}

struct Parts {
  double gradient, update, encode, self_mixing, transfer, decode, neighbor_mixing;
};

// One D-PSGD step of one node: gradient, update, encode, send; self-weighted copy while the message flies;
// then decode and mix the neighbour's model. The self-mixing overlaps the transfer.
Parts parts(double d, const json& charge) {
  auto on = [&](const char* part) { return !charge.contains(part) || charge[part].get<bool>(); };
  const double floats = 4.0 / memory_bandwidth;
  return {on("gradient") ? (4.0 * features + 2 + 3) / host_speed : 0,
          on("update") ? 3 * d * floats : 0,
          on("encode") ? d / encode_speed : 0,
          on("mixing") ? 2 * d * floats : 0,
          latency + 4 * d / bandwidth,
          on("decode") ? d / decode_speed : 0,
          on("mixing") ? 3 * d * floats : 0};
}

}  // namespace

TEST_CASE("a step's simulated time is the sum of the charged parts plus the transfer, part by part") {
  for (const json& charge : {json::object(), json{{"encode", false}}, json{{"decode", false}},
                             json{{"mixing", false}}, json{{"update", false}}, json{{"gradient", false}},
                             json{{"gradient", false},
                                  {"encode", false},
                                  {"decode", false},
                                  {"mixing", false},
                                  {"update", false}}}) {
    INFO("charge " << charge.dump());
    const Run run = run_scenario(two_node_dpsgd(charge), "compute-time");
    REQUIRE(run.exit_code == 0);
    const double d = run.summary["dimension"].get<double>();
    REQUIRE(d == features + 1);
    const Parts p = parts(d, charge);
    const double step =
        p.gradient + p.update + p.encode + std::max(p.self_mixing, p.transfer) + p.decode + p.neighbor_mixing;
    REQUIRE(run.trace.rows.size() == steps + 1);
    for (int k = 0; k <= steps; ++k) {
      INFO("step " << k);
      const auto at = static_cast<std::size_t>(k);
      CHECK(run.trace.number(at, "sim_time_s") == Approx(k * step).epsilon(1e-9).margin(1e-15));
      CHECK(run.trace.number(at, "gradient_s") == Approx(k * p.gradient).epsilon(1e-9).margin(1e-15));
      CHECK(run.trace.number(at, "encode_s") == Approx(k * p.encode).epsilon(1e-9).margin(1e-15));
      CHECK(run.trace.number(at, "decode_s") == Approx(k * p.decode).epsilon(1e-9).margin(1e-15));
      CHECK(run.trace.number(at, "update_s") == Approx(k * p.update).epsilon(1e-9).margin(1e-15));
      CHECK(run.trace.number(at, "mixing_s") ==
            Approx(k * (p.self_mixing + p.neighbor_mixing)).epsilon(1e-9).margin(1e-15));
      CHECK(run.trace.number(at, "communication_s") ==
            Approx(k * (std::max(p.self_mixing, p.transfer) - p.self_mixing)).epsilon(1e-9).margin(1e-15));
    }
    const json& split = run.summary["simulated_time_s"];
    CHECK(split["total"].get<double>() == Approx(steps * step).epsilon(1e-9));
    double sum = 0;
    for (const char* part : {"gradient", "encode", "decode", "mixing", "update", "communication"})
      sum += split[part].get<double>();
    CHECK(sum == Approx(steps * step).epsilon(1e-9));
  }
}

TEST_CASE("charged time leaves the learning untouched and the trace byte-identical from run to run") {
  const Run first = run_scenario(two_node_dpsgd(json::object()), "compute-repeat");
  const Run second = run_scenario(two_node_dpsgd(json::object()), "compute-repeat");
  const Run free = run_scenario(
      two_node_dpsgd(json{
          {"gradient", false}, {"encode", false}, {"decode", false}, {"mixing", false}, {"update", false}}),
      "compute-free");
  REQUIRE(first.exit_code == 0);
  REQUIRE(second.exit_code == 0);
  REQUIRE(free.exit_code == 0);
  CHECK(first.trace_text == second.trace_text);
  for (std::size_t row = 0; row < first.trace.rows.size(); ++row) {
    CHECK(first.trace.rows[row].at("train_loss") == free.trace.rows[row].at("train_loss"));
    CHECK(first.trace.rows[row].at("bits_sent") == free.trace.rows[row].at("bits_sent"));
  }
}

TEST_CASE("a profile without a throughput for the scenario's compressor is an input error naming the place") {
  json scenario = two_node_dpsgd(json::object());
  scenario["algorithm"] = {{"kind", "choco"},
                           {"steps", 2},
                           {"lr", 0.01},
                           {"consensus_step", 0.5},
                           {"compressor", {{"kind", "qsgd"}}}};
  const auto folder = temporary_folder("compute-profile");
  {
    std::ofstream out(folder / "profile.json");
    out << R"({"host_speed": "1Gf", "memory_bandwidth": "1GBps", "codecs": {"none": {"encode": 1e9, "decode": 1e9}}})";
  }
  scenario["compute"] = {{"profile", (folder / "profile.json").string()}};
  const Run run = run_scenario(scenario, "compute-profile-missing");
  CHECK(run.exit_code == 2);
  CHECK(run.output.find("$.algorithm.compressor") != std::string::npos);
  CHECK(run.output.find("has no encode price for codec configuration {") != std::string::npos);
  CHECK(run.output.find("\"kind\":\"qsgd\"") != std::string::npos);
  CHECK(run.output.find("sgdsim calibrate --scenario ") != std::string::npos);

  // A malformed profile names the profile file and the key.
  {
    std::ofstream out(folder / "profile.json");
    out << R"({"host_speed": "1Gf", "memory_bandwidth": -3, "codecs": {}})";
  }
  const Run bad = run_scenario(scenario, "compute-profile-bad");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("profile.json: $.memory_bandwidth") != std::string::npos);
}

TEST_CASE("sgdsim calibrate writes a profile that scenarios accept, with every compressor kind") {
  const auto folder = temporary_folder("calibrate");
  const auto result =
      run_command(std::string(SGDSIM_BINARY) + " calibrate --dimension 4096 --repetitions 1 " +
                  "--min-seconds 0.0001 -o " + (folder / "profile.json").string());
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const json profile = json::parse(read_text(folder / "profile.json"));
  CHECK(profile["host_speed"].get<double>() > 0);
  CHECK(profile["memory_bandwidth"].get<double>() > 0);
  std::set<std::string> kinds;
  for (const json& entry : profile["codecs"]) {
    INFO(entry.dump());
    kinds.insert(entry["codec"]["kind"].get<std::string>());
    CHECK(entry["encode"].get<double>() > 0);
    CHECK(entry["decode"].get<double>() > 0);
    CHECK_THAT(entry["source"].get<std::string>(), Catch::Contains("measured by sgdsim calibrate"));
  }
  for (const char* kind : {"none", "qsgd", "qsgdinf", "nuqsgd", "topk", "randk", "sign", "compose"}) {
    INFO(kind);
    CHECK(kinds.count(kind) == 1);
  }
  json scenario = two_node_dpsgd(json::object());
  scenario["compute"] = {{"profile", (folder / "profile.json").string()}};
  const Run run = run_scenario(scenario, "calibrated-profile");
  REQUIRE(run.exit_code == 0);
  CHECK(run.summary["simulated_time_s"]["encode"].get<double>() > 0);
}

TEST_CASE("calibrate --scenario measures exactly the scenario's codec configurations into a profile") {
  const auto folder = temporary_folder("calibrate-scenario");
  json scenario = two_node_dpsgd(json::object());
  scenario["algorithm"] = {
      {"kind", "choco"},
      {"steps", 2},
      {"lr", 0.01},
      {"consensus_step", 0.5},
      {"compressor", {{"kind", "qsgd"}, {"levels", 7}, {"coding", "fixed"}, {"bucket", 32}}}};
  const auto scenario_file = folder / "fixed7.json";
  std::ofstream(scenario_file) << scenario.dump(2);
  // An existing profile: the measured price joins its entries.
  const auto profile_file = folder / "profile.json";
  std::ofstream(profile_file) << R"({"host_speed": "1Gf", "memory_bandwidth": "1GBps",
      "codecs": [{"codec": {"kind": "sign", "bucket": 40}, "encode": 1e9, "decode": 2e9, "source": "a test"}]})";
  const auto calibrated = run_command(
      std::string(SGDSIM_BINARY) + " calibrate --dimension 4096 --repetitions 1 " +
      "--min-seconds 0.0001 --scenario " + scenario_file.string() + " -o " + profile_file.string());
  INFO(calibrated.output);
  REQUIRE(calibrated.exit_code == 0);
  const json profile = json::parse(read_text(profile_file));
  CHECK(profile["host_speed"] == "1Gf");
  REQUIRE(profile["codecs"].size() == 2);
  std::map<std::string, json> by_kind;
  for (const json& entry : profile["codecs"]) by_kind[entry["codec"]["kind"].get<std::string>()] = entry;
  CHECK(by_kind["sign"]["encode"] == 1e9);
  CHECK(by_kind["sign"]["source"] == "a test");
  const json& qsgd = by_kind["qsgd"];
  CHECK(qsgd["codec"]["levels"] == 7);
  CHECK(qsgd["codec"]["coding"] == "fixed");
  CHECK(qsgd["codec"]["bucket"] == 32);
  CHECK_FALSE(qsgd["codec"].contains("scale"));  // does not change the speed
  CHECK(qsgd["encode"].get<double>() > 0);
  CHECK_THAT(qsgd["source"].get<std::string>(), Catch::Contains("measured by sgdsim calibrate"));

  // The scenario runs on that profile, and resolved.json echoes the price it used and its source.
  scenario["compute"] = {{"profile", profile_file.string()}};
  const Run run = run_scenario(scenario, "calibrated-scenario");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const json resolved = json::parse(read_text(run.directory / "resolved.json"));
  const json& echoed = resolved["compute"]["codecs"];
  REQUIRE(echoed.size() == 1);
  CHECK(echoed[0]["codec"] == qsgd["codec"]);
  CHECK(echoed[0]["encode"] == qsgd["encode"]);
  CHECK(echoed[0]["decode"] == qsgd["decode"]);
  CHECK_THAT(echoed[0]["source"].get<std::string>(), Catch::Contains("measured by sgdsim calibrate"));

  // Another level count is not priced by that entry.
  scenario["algorithm"]["compressor"]["levels"] = 8;
  const Run unpriced = run_scenario(scenario, "calibrated-scenario-unpriced");
  CHECK(unpriced.exit_code == 2);
  CHECK_THAT(unpriced.output, Catch::Contains("\"levels\":8"));
}

TEST_CASE("calibrate --scale-to names the reference profile without the machine's absolute path") {
  const auto folder = temporary_folder("calibrate-scale-to");
  json scenario = two_node_dpsgd(json::object());
  scenario["algorithm"] = {{"kind", "choco"},
                           {"steps", 2},
                           {"lr", 0.01},
                           {"consensus_step", 0.5},
                           {"compressor", {{"kind", "qsgd"}, {"levels", 5}, {"bucket", 16}}}};
  const auto scenario_file = folder / "levels5.json";
  std::ofstream(scenario_file) << scenario.dump(2);
  const auto reference_file = folder / "reference.json";
  std::ofstream(reference_file) << R"({"host_speed": "1Gf", "memory_bandwidth": "1GBps",
      "codecs": [{"codec": {"kind": "sign", "bucket": 40}, "encode": 1e9, "decode": 2e9, "source": "a test"}]})";
  const auto output = folder / "out.json";
  const auto calibrated = run_command(std::string(SGDSIM_BINARY) +
                                      " calibrate --dimension 4096 --repetitions 1 --min-seconds 0.0001 " +
                                      "--scenario " + scenario_file.string() + " --scale-to " +
                                      fs::absolute(reference_file).string() + " -o " + output.string());
  INFO(calibrated.output);
  REQUIRE(calibrated.exit_code == 0);
  const json profile = json::parse(read_text(output));
  REQUIRE(profile["codecs"].size() == 1);
  const std::string source = profile["codecs"][0]["source"].get<std::string>();
  CHECK_THAT(source, Catch::Contains("load factor"));
  CHECK_THAT(source, Catch::Contains("reference.json"));
  CHECK_THAT(source, !Catch::Contains(fs::absolute(folder).string()));
}

TEST_CASE("calibrate refuses an output it could not write, and --min-seconds nan, before measuring") {
  const auto folder = temporary_folder("calibrate-refused");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"-o " + folder.string(), folder.string() + ": is a directory"},
      {"-o " + (folder / "missing" / "p.json").string(),
       "the folder " + (folder / "missing").string() + " does not exist"},
      {"--min-seconds nan", "--min-seconds: expected a finite number of seconds"}};
  for (const auto& [options, message] : cases) {
    const auto start = std::chrono::steady_clock::now();
    // Measuring with these options takes tens of seconds: a refusal must come at once.
    const auto result = run_command(std::string(SGDSIM_BINARY) + " calibrate --repetitions 1001 " + options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(options << "\n" << result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains(message));
    CHECK(seconds < 5);
  }
}

TEST_CASE("the all-reduce collectives charge the encoding of their chunks, not a whole-vector encode too") {
  // Four workers: allgather sends each worker's whole encoded vector (d coordinates encoded per step); ring
  // all-reduce and recursive doubling encode their own pieces. Per node and step, ring all-reduce encodes
  // 2(n - 1)/n · d coordinates on average (every chunk but two, twice); recursive doubling, with n a power of
  // two, log2(n) whole vectors.
  auto encode_seconds = [](const char* collective) {
    json scenario = two_node_dpsgd(json::object());
    scenario["network"]["topology"]["nodes"] = 4;
    scenario["algorithm"] = {
        {"kind", "data_parallel"}, {"steps", steps}, {"lr", 0.01}, {"collective", {{"kind", collective}}}};
    const Run run = run_scenario(scenario, std::string("collective-encode-") + collective);
    INFO(run.output);
    REQUIRE(run.exit_code == 0);
    REQUIRE(run.summary["dimension"].get<double>() == features + 1);
    return run.summary["simulated_time_s"]["encode"].get<double>();
  };
  const double d = features + 1, n = 4;
  CHECK(encode_seconds("allgather") == Approx(steps * d / encode_speed).epsilon(1e-9));
  CHECK(encode_seconds("ring_allreduce") == Approx(steps * 2 * (n - 1) / n * d / encode_speed).epsilon(1e-9));
  CHECK(encode_seconds("recursive_doubling") == Approx(steps * 2 * d / encode_speed).epsilon(1e-9));
}
