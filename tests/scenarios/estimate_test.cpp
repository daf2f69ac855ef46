// `sgdsim estimate`: the per-step figures of a scenario without the model's math. They are the figures a run
// of the scenario has (the same prices, the same network), so they are checked against closed forms and
// against a run's own split.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

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

// Two nodes exchanging fp32 models with D-PSGD, one sample per step: every cost is known in closed form.
json two_node_dpsgd() {
  return {{"seed", 3},
          {"network",
           {{"topology", {{"kind", "complete"}, {"nodes", 2}}},
            {"link", {{"bandwidth", "1MBps"}, {"latency", "200us"}}},
            {"model", "ideal"}}},
          {"compute",
           {{"host_speed", "2Gf"},
            {"memory_bandwidth", "4GBps"},
            {"codecs", {{"none", {{"encode", encode_speed}, {"decode", decode_speed}}}}}}},
          {"data",
           {{"dataset", "synthetic"},
            {"kind", "linear"},
            {"samples", 50},
            {"features", features},
            {"batch_size", 1}}},
          {"model", {{"kind", "linear"}}},
          {"algorithm", {{"kind", "dpsgd"}, {"steps", 20}, {"lr", 0.01}}},
          {"eval", {{"every", 5}}}};
}

struct Estimate {
  int exit_code = -1;
  std::string output;
  json figures;
};

Estimate estimate(const json& scenario, const std::string& label, const std::string& extra = "--json") {
  const auto folder = temporary_folder(label);
  std::ofstream(folder / "scenario.json") << scenario.dump(2);
  const auto result = run_command(std::string(SGDSIM_BINARY) + " estimate " +
                                  (folder / "scenario.json").string() + " " + extra + " 2>&1");
  Estimate e{result.exit_code, result.output, json()};
  if (e.exit_code == 0 && extra.starts_with("--json")) e.figures = json::parse(result.output);
  return e;
}

}  // namespace

TEST_CASE("estimate gives a D-PSGD step's parts in closed form") {
  const Estimate e = estimate(two_node_dpsgd(), "estimate-dpsgd");
  INFO(e.output);
  REQUIRE(e.exit_code == 0);
  const double d = features + 1;
  CHECK(e.figures["dimension"] == features + 1);
  const double flops = e.figures["flops_per_sample"].get<double>();
  CHECK(flops > 0);
  const json& s = e.figures["per_step"];
  const double floats = 4.0 / memory_bandwidth;
  const double self_mixing = 2 * d * floats, transfer = latency + 4 * d / bandwidth;
  CHECK(s["gradient_s"].get<double>() == Approx(flops / host_speed).epsilon(1e-9));
  CHECK(s["encode_s"].get<double>() == Approx(d / encode_speed).epsilon(1e-9));
  CHECK(s["decode_s"].get<double>() == Approx(d / decode_speed).epsilon(1e-9));
  CHECK(s["update_s"].get<double>() == Approx(3 * d * floats).epsilon(1e-9));
  CHECK(s["mixing_s"].get<double>() == Approx(self_mixing + 3 * d * floats).epsilon(1e-9));
  CHECK(s["communication_s"].get<double>() ==
        Approx(std::max(self_mixing, transfer) - self_mixing).epsilon(1e-9));
  const double step = flops / host_speed + d / encode_speed + d / decode_speed + 3 * d * floats +
                      std::max(self_mixing, transfer) + 3 * d * floats;
  CHECK(s["total_s"].get<double>() == Approx(step).epsilon(1e-9));
  const json& m = e.figures["message_bytes"];
  CHECK(m["payload_per_message"].get<double>() == 4 * d);  // fp32: exactly 4 d bytes
  CHECK(m["messages_per_step"].get<double>() == 2);
  // Each price says where it came from.
  CHECK(e.figures["sources"]["gradient"][0]["source"].get<std::string>().find("flop count") !=
        std::string::npos);
  CHECK(e.figures["sources"]["encode"][0]["source"] == "the scenario's compute.codecs.none.encode");
  CHECK(e.figures["sources"]["decode"][0]["for"]["kind"] == "none");
  for (const char* work : {"mixing", "update"})
    CHECK_FALSE(e.figures["sources"][work][0]["source"].get<std::string>().empty());
}

TEST_CASE("estimate gives the split a run of the scenario has, for a compressed gossip") {
  json scenario = two_node_dpsgd();
  scenario["network"]["topology"] = {{"kind", "ring"}, {"nodes", 4}};
  scenario["compute"] = {{"host_speed", "2Gf"}};  // the bundled profile's prices
  scenario["algorithm"] = {{"kind", "choco"},
                           {"steps", 5},
                           {"lr", 0.01},
                           {"consensus_step", 0.5},
                           {"compressor", {{"kind", "qsgd"}, {"levels", 4}}}};
  scenario["eval"] = {{"every", 5}};
  const Estimate e = estimate(scenario, "estimate-choco", "--json --steps 5");
  INFO(e.output);
  REQUIRE(e.exit_code == 0);
  const Run run = run_scenario(scenario, "estimate-choco-run");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  // What the nodes compute is charged in amounts that do not depend on the values: the same seconds.
  const json& split = run.summary["simulated_time_s"];
  for (const char* part : {"gradient", "encode", "decode", "mixing", "update"}) {
    INFO(part);
    CHECK(e.figures["per_step"][std::string(part) + "_s"].get<double>() ==
          Approx(split[part].get<double>() / 5).epsilon(1e-9));
  }
  CHECK(e.figures["message_bytes"]["messages_per_step"].get<double>() ==
        Approx(run.summary["final"]["messages"].get<double>() / 5));
  // The human form names every part and its price's source.
  const Estimate text = estimate(scenario, "estimate-choco-text", "");
  REQUIRE(text.exit_code == 0);
  for (const char* part : {"gradient", "encode", "decode", "mixing", "update", "flop per sample"})
    CHECK_THAT(text.output, Catch::Contains(part));
  CHECK_THAT(text.output, Catch::Contains("profiles/default.json"));
}

TEST_CASE("estimate's seconds per step are a run's, for a synchronous scenario with messages of fixed size") {
  // fp32 messages and a protocol that never reads the clock: the stand-in gradient changes no byte and no
  // charge, so the whole step, waiting included, is the run's.
  json scenario = two_node_dpsgd();
  scenario["network"]["topology"] = {{"kind", "ring"}, {"nodes", 4}};
  scenario["algorithm"]["steps"] = 5;
  const Estimate e = estimate(scenario, "estimate-sync", "--json --steps 5");
  INFO(e.output);
  REQUIRE(e.exit_code == 0);
  const Run run = run_scenario(scenario, "estimate-sync-run");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const json& split = run.summary["simulated_time_s"];
  for (const char* part : {"gradient", "encode", "decode", "mixing", "update", "communication", "total"}) {
    INFO(part);
    CHECK(e.figures["per_step"][std::string(part) + "_s"].get<double>() ==
          Approx(split[part].get<double>() / 5).epsilon(1e-9));
  }
  CHECK(e.figures["message_bytes"]["on_wire_per_step"].get<double>() ==
        Approx(run.summary["final"]["bytes_on_wire"].get<double>() / 5).epsilon(1e-12));
}

TEST_CASE("estimate refuses a bad scenario with exit 2, naming the place") {
  json scenario = two_node_dpsgd();
  scenario["algorithm"]["lr"] = "fast";
  const Estimate e = estimate(scenario, "estimate-bad");
  CHECK(e.exit_code == 2);
  CHECK_THAT(e.output, Catch::Contains("$.algorithm.lr"));
}
