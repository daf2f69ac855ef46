// network.calibration: a scenario names a calibration file (sgdsim calibrate --network) or holds it inline;
// resolved.json echoes the factors; bad files stop the run with exit 2, naming the file and the place.
#include <fstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using json = nlohmann::json;

namespace {

// Two nodes on one 1 MB/s link without latency, D-PSGD on a 20-feature linear model (84-byte messages), no
// charged work: communication alone.
json two_nodes(const json& calibration) {
  json network = {{"topology", {{"kind", "complete"}, {"nodes", 2}}},
                  {"link", {{"bandwidth", "1MBps"}, {"latency", "0s"}}}};
  if (!calibration.is_null()) network["calibration"] = calibration;
  return {
      {"seed", 3},
      {"network", network},
      {"compute",
       {{"charge",
         {{"gradient", false}, {"encode", false}, {"decode", false}, {"mixing", false}, {"update", false}}}}},
      {"data",
       {{"dataset", "synthetic"}, {"kind", "linear"}, {"samples", 50}, {"features", 20}, {"batch_size", 1}}},
      {"model", {{"kind", "linear"}}},
      {"algorithm", {{"kind", "dpsgd"}, {"steps", 3}, {"lr", 0.01}}},
      {"eval", {{"every", 1}}}};
}

json segments(double small_factor, double large_factor) {
  return {{"segments",
           {{{"from_bytes", 0}, {"latency_factor", 1}, {"bandwidth_factor", small_factor}},
            {{"from_bytes", 1000}, {"latency_factor", 1}, {"bandwidth_factor", large_factor}}}}};
}

}  // namespace

TEST_CASE("a calibration file slows messages by its factor and resolved.json echoes the factors") {
  const Run plain = run_scenario(two_nodes(nullptr), "calibration-none");
  INFO(plain.output);
  REQUIRE(plain.exit_code == 0);
  const auto folder = temporary_folder("calibration-file");
  std::ofstream(folder / "net.json") << segments(0.25, 1.0).dump();
  json scenario = two_nodes((folder / "net.json").string());
  const Run calibrated = run_scenario(scenario, "calibration-file-run");
  INFO(calibrated.output);
  REQUIRE(calibrated.exit_code == 0);
  // Every message (84 bytes) is in the first segment: a quarter of the bandwidth, four times the time.
  const double before = plain.summary["simulated_time_s"]["total"].get<double>();
  const double after = calibrated.summary["simulated_time_s"]["total"].get<double>();
  CHECK(before > 0);
  CHECK(after == Approx(4 * before).epsilon(1e-9));
  const json resolved = json::parse(read_text(calibrated.directory / "resolved.json"));
  const json& echoed = resolved["network"]["calibration"];
  CHECK(echoed["segments"] == segments(0.25, 1.0)["segments"]);
  CHECK(echoed["source"] == (folder / "net.json").string());

  // resolved.json runs as it is, to the same time.
  const Run again = run_scenario(resolved, "calibration-resolved");
  INFO(again.output);
  REQUIRE(again.exit_code == 0);
  CHECK(again.summary["simulated_time_s"]["total"].get<double>() == after);
}

TEST_CASE("a bad calibration stops the run with exit 2, naming the file and the place, writing nothing") {
  struct Case {
    json file;
    const char* place;
    const char* says;
  };
  const json first = {{"from_bytes", 0}, {"latency_factor", 1}, {"bandwidth_factor", 1}};
  const std::vector<Case> cases{
      {{{"segments", json::array()}}, "$.segments", "at least one segment"},
      {{{"segments", {{{"from_bytes", 10}, {"latency_factor", 1}, {"bandwidth_factor", 1}}}}},
       "$.segments[0].from_bytes",
       "start at 0 bytes"},
      {{{"segments", {first, first}}}, "$.segments[1].from_bytes", "ascend"},
      {{{"segments", {{{"from_bytes", 0}, {"latency_factor", 1}, {"bandwidth_factor", -2}}}}},
       "$.segments[0].bandwidth_factor",
       ""},
      {{{"segments", {first}}, {"segment", 1}}, "$", "segment"},
      {{{"source", "x"}}, "$.segments", ""},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto folder = temporary_folder("calibration-bad");
    std::ofstream(folder / "net.json") << cases[i].file.dump();
    const Run run = run_scenario(two_nodes((folder / "net.json").string()), "calibration-bad-run");
    INFO(cases[i].file.dump() << "\n" << run.output);
    CHECK(run.exit_code == 2);
    CHECK_THAT(run.output, Catch::Contains(std::string("net.json: ") + cases[i].place));
    CHECK_THAT(run.output, Catch::Contains(cases[i].says));
    CHECK_THAT(run.output, Catch::Contains("$.network"));
    CHECK_FALSE(std::filesystem::exists(run.directory));
  }
  // Inline, the place is the scenario's.
  const Run inline_bad = run_scenario(two_nodes({{"segments", json::array()}}), "calibration-inline-bad");
  CHECK(inline_bad.exit_code == 2);
  CHECK_THAT(inline_bad.output, Catch::Contains("scenario.json: $.network.calibration.segments"));
  const Run missing = run_scenario(two_nodes("no-such-net.json"), "calibration-missing");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Catch::Contains("no-such-net.json"));
  const Run number = run_scenario(two_nodes(3), "calibration-number");
  CHECK(number.exit_code == 2);
  CHECK_THAT(number.output, Catch::Contains("$.network.calibration"));
}
