// Sweeps and plots driven by the real `sgdsim run` on a tiny synthetic problem (well under a second per
// point).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "analysis/csv_table.hpp"
#include "analysis_fixture.hpp"

using namespace sgdsim::analysis_tests;
using sgdsim::analysis::parse_csv;

namespace {

const char* const tiny_sweep = R"({
  "name": "tiny",
  "base": {"seed": 1, "network": {"topology": {"kind": "ring", "nodes": 4}},
           "data": {"dataset": "synthetic", "kind": "logistic", "samples": 400, "features": 10},
           "model": {"kind": "logistic"}, "algorithm": {"kind": "dpsgd", "steps": 50, "lr": 0.1},
           "eval": {"every": 10}},
  "grid": {
    "network.link.bandwidth": ["1Mbps", "100Mbps"],
    "algorithm": {"labels": ["dpsgd", "choco-qsgd"], "values": [
      {"kind": "dpsgd", "steps": 50, "lr": 0.1},
      {"kind": "choco", "steps": 50, "lr": 0.1, "consensus_step": 0.5, "compressor": {"kind": "qsgd", "levels": 4}}]}
  },
  "seeds": [3]
})";

// The real binary runs the points: no SGDSIM_RUNNER.
CommandResult real(const std::string& arguments) {
  return run_command("env -u SGDSIM_RUNNER " + quote(SGDSIM_BINARY) + " " + arguments);
}

}  // namespace

TEST_CASE("a sweep of real runs indexes their summaries, and each point reruns by hand to the same bytes") {
  ScratchDir scratch("real");
  write_text(scratch / "tiny.json", tiny_sweep);
  const fs::path out = scratch / "out";
  const auto result =
      real("sweep " + quote((scratch / "tiny.json").string()) + " -o " + quote(out.string()) + " -j 2");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);

  const auto index = parse_csv(read_text(out / "index.csv"), "index.csv");
  REQUIRE(index.rows.size() == 4);
  for (const auto& row : index.rows) {
    INFO(row[0]);
    CHECK(row[*index.column("status")] == "ok");
    const auto summary = nlohmann::json::parse(read_text(out / "runs" / row[0] / "summary.json"));
    CHECK(row[*index.column("train_loss")] == summary["final"]["train_loss"].dump());
    CHECK(row[*index.column("bits_sent")] == summary["final"]["bits_sent"].dump());
    CHECK(summary["final"]["step"] == 50);
    const auto resolved = nlohmann::json::parse(read_text(out / "runs" / row[0] / "resolved.json"));
    CHECK(resolved["seed"] == 3);
    CHECK(resolved["network"]["link"]["bandwidth"] == row[*index.column("network.link.bandwidth")]);
  }
  // Compression shows in the bits: CHOCO with 4-level QSGD sends fewer bits than full-precision D-PSGD.
  const auto bits = *index.column("bits_sent");
  CHECK(std::stod(index.rows[2][bits]) < std::stod(index.rows[0][bits]));

  // Reproduce one point by hand from its expanded scenario.
  const std::string id = index.rows[3][0];
  const auto by_hand = real("run " + quote((out / "points" / (id + ".json")).string()) + " -o " +
                            quote((scratch / "by-hand").string()));
  INFO(by_hand.output);
  REQUIRE(by_hand.exit_code == 0);
  CHECK(read_text(scratch / "by-hand/trace.csv") == read_text(out / "runs" / id / "trace.csv"));

  // And the figures: bits vs loss, and time to target vs bandwidth.
  const auto bits_plot =
      real("plot " + quote(out.string()) + " --group algorithm -o " + quote((scratch / "bits.png").string()));
  INFO(bits_plot.output);
  CHECK(bits_plot.exit_code == 0);
  CHECK(fs::file_size(scratch / "bits.png") > 1000);
  const auto bandwidth_plot = real("plot " + quote(out.string()) + " --x bandwidth --target 0.5 -o " +
                                   quote((scratch / "bw.svg").string()));
  INFO(bandwidth_plot.output);
  CHECK(bandwidth_plot.exit_code == 0);
  CHECK_THAT(read_text(scratch / "bw.svg"), Catch::Contains("<svg"));
}

TEST_CASE("a sweep validates every point before it runs any: each bad setting and key named, exit 2") {
  ScratchDir scratch("real-bad");
  // Two good settings and two bad ones (a key the chosen algorithm does not have; a value out of range), two
  // seeds each: the bad ones are found before the good ones run.
  write_text(scratch / "s.json", R"({
    "base": {"seed": 1, "network": {"topology": {"kind": "ring", "nodes": 4}},
             "data": {"dataset": "synthetic", "kind": "logistic", "samples": 200, "features": 5},
             "model": {"kind": "logistic"},
             "algorithm": {"kind": "data_parallel", "collective": "allgather", "steps": 20, "lr": 0.1},
             "eval": {"every": 10}},
    "grid": {"algorithm.kind": ["data_parallel", "dpsgd"], "algorithm.steps": [20, -5]},
    "seeds": [1, 2]
  })");
  const fs::path out = scratch / "out";
  for (const std::string& more : {std::string(), std::string(" --dry-run")}) {
    const auto result =
        real("sweep " + quote((scratch / "s.json").string()) + " -o " + quote(out.string()) + more);
    INFO(more << "\n" << result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains("3 of 4 settings are invalid; nothing was run"));
    CHECK_THAT(result.output, Catch::Contains("point kind=dpsgd, steps=20: $.algorithm.collective"));
    CHECK_THAT(result.output, Catch::Contains("point kind=data_parallel, steps=-5: $.algorithm.steps"));
    CHECK_THAT(result.output, Catch::Contains("(seeds 1, 2)"));
    CHECK_THAT(result.output, !Catch::Contains("rerun"));
    CHECK_FALSE(fs::exists(out));
  }
  // A good sweep's dry run validates its points, lists them and writes nothing.
  write_text(scratch / "tiny.json", tiny_sweep);
  const auto good =
      real("sweep " + quote((scratch / "tiny.json").string()) + " -o " + quote(out.string()) + " --dry-run");
  INFO(good.output);
  CHECK(good.exit_code == 0);
  CHECK_THAT(good.output, Catch::Contains("choco-qsgd"));
  CHECK_FALSE(fs::exists(out));
}

TEST_CASE("completed real runs pass the resolved.json check on resume, and a changed base fails it") {
  ScratchDir scratch("real-resume");
  write_text(scratch / "tiny.json", tiny_sweep);
  const fs::path out = scratch / "out";
  const std::string args = "sweep " + quote((scratch / "tiny.json").string()) + " -o " + quote(out.string());
  REQUIRE(real(args + " -j 2").exit_code == 0);
  // Every value a point sets is echoed unchanged into the run's resolved.json (defaults only add to it).
  fs::remove_all(out / "points");
  const auto resumed = real(args);
  INFO(resumed.output);
  CHECK(resumed.exit_code == 0);
  CHECK_THAT(resumed.output, Catch::Contains("4 already complete, running 0"));
  std::string changed = tiny_sweep;
  changed.replace(changed.find("\"samples\": 400"), 14, "\"samples\": 500");
  write_text(scratch / "tiny.json", changed);
  fs::remove_all(out / "points");
  const auto stale = real(args + " --index-only");
  INFO(stale.output);
  CHECK(stale.exit_code == 2);
  CHECK_THAT(stale.output, Catch::Contains("resolved.json: $.data.samples"));
}
