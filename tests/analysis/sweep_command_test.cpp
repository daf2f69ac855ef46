// `sgdsim sweep` end to end with the fake runner: index completeness, resume after kill -9, shards, failures,
// bad input. The real `sgdsim run` is exercised in real_run_test.cpp.
#include <set>

#include <catch2/catch.hpp>

#include "analysis/csv_table.hpp"
#include "analysis_fixture.hpp"

using namespace sgdsim::analysis_tests;
using sgdsim::analysis::parse_csv;

namespace {

// 3 bandwidths x 2 methods x 2 seeds = 12 points.
const char* const sweep_text = R"({
  // a small study
  "name": "bw",
  "base": {"network": {"topology": {"kind": "ring", "nodes": 4}}, "algorithm": {"kind": "dpsgd", "steps": 50}},
  "grid": {
    "network.link.bandwidth": ["10Mbps", "100Mbps", "1000Mbps"],
    "algorithm": {"labels": ["dpsgd", "choco"], "values": [{"kind": "dpsgd", "steps": 50}, {"kind": "choco", "steps": 50}]}
  },
  "seeds": [1, 2]
})";

std::string sweep_args(const fs::path& sweep, const fs::path& out, const std::string& more = "") {
  return "sweep " + quote(sweep.string()) + " -o " + quote(out.string()) + " " + more;
}

}  // namespace

TEST_CASE("a sweep runs every point and lists each in the index with parameters and final figures") {
  ScratchDir scratch("index");
  write_text(scratch / "s.json", sweep_text);
  const auto result = run_sgdsim(sweep_args(scratch / "s.json", scratch / "out", "-j 2"));
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.output, Catch::Contains("[12/12] ok"));  // a progress line per point

  const auto index = parse_csv(read_text(scratch / "out/index.csv"), "index.csv");
  const std::vector<std::string> leading = {"id",   "label",      "algorithm", "network.link.bandwidth",
                                            "seed", "status",     "timing",    "retimed_from",
                                            "step", "sim_time_s", "bits_sent", "bytes_on_wire"};
  REQUIRE(index.header.size() >= leading.size());
  CHECK(std::vector<std::string>(index.header.begin(), index.header.begin() + leading.size()) == leading);
  REQUIRE(index.rows.size() == 12);
  std::set<std::string> ids;
  for (const auto& row : index.rows) {
    ids.insert(row[0]);
    CHECK(row[*index.column("status")] == "ok");
    CHECK(row[*index.column("step")] == "50");
    CHECK_FALSE(row[*index.column("train_loss")].empty());
    CHECK(row[*index.column("triggers")].empty());  // null in summary.json -> empty cell
    // Each run folder is complete and its scenario can be rerun by hand.
    CHECK(fs::exists(scratch / "out/runs" / row[0] / "summary.json"));
    CHECK(fs::exists(scratch / "out/points" / (row[0] + ".json")));
  }
  CHECK(ids.size() == 12);
  CHECK(entries(scratch / "out/runs").size() == 12);  // nothing else left behind

  // A rerun has nothing to do and rewrites the same index.
  const std::string before = read_text(scratch / "out/index.csv");
  const auto again = run_sgdsim(sweep_args(scratch / "s.json", scratch / "out"));
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.output, Catch::Contains("12 already complete, running 0"));
  CHECK(read_text(scratch / "out/index.csv") == before);
}

TEST_CASE("a sweep killed with kill -9 and rerun ends with the same index as an uninterrupted one") {
  ScratchDir scratch("resume");
  write_text(scratch / "s.json", sweep_text);
  REQUIRE(run_sgdsim(sweep_args(scratch / "s.json", scratch / "whole", "-j 2")).exit_code == 0);
  const std::string expected = read_text(scratch / "whole/index.csv");

  // Each fake run sleeps 0.2 s, so after 0.9 s with -j 2 the sweep is part-way; kill it and its children
  // hard.
  const fs::path out = scratch / "cut";
  const std::string start = "SGDSIM_RUNNER=" + quote(fake_runner()) + " FAKE_SLEEP=0.2 " +
                            quote(SGDSIM_BINARY) + " " + sweep_args(scratch / "s.json", out, "-j 2");
  const auto killed =
      run_command("(" + start + " >/dev/null 2>&1 & pid=$!; sleep 0.9; kill -9 $pid; wait $pid; sleep 0.3)");
  INFO(killed.output);
  const auto done_before = entries(out / "runs");
  CHECK(done_before.size() < 12);  // it was really interrupted
  // Simulate the other kinds of damage: a leftover temporary folder of a run, and a deleted summary.
  const auto first = parse_csv(read_text(scratch / "whole/index.csv"), "index.csv").rows;
  fs::create_directories(out / "runs" / ("." + first[5][0] + ".tmp.12345"));
  write_text(out / "runs" / ("." + first[5][0] + ".tmp.12345") / "trace.csv", "partial");
  if (fs::exists(out / "runs" / first[0][0])) fs::remove(out / "runs" / first[0][0] / "summary.json");

  const auto rerun = run_sgdsim(sweep_args(scratch / "s.json", out, "-j 2"));
  INFO(rerun.output);
  REQUIRE(rerun.exit_code == 0);
  CHECK(read_text(out / "index.csv") == expected);
  CHECK(entries(out / "runs").size() == 12);  // leftovers removed
}

TEST_CASE("shards are disjoint, cover the sweep, and their runs copied together rebuild the full index") {
  ScratchDir scratch("shards");
  write_text(scratch / "s.json", sweep_text);
  REQUIRE(run_sgdsim(sweep_args(scratch / "s.json", scratch / "whole")).exit_code == 0);
  const std::string expected = read_text(scratch / "whole/index.csv");

  std::set<std::string> seen;
  std::size_t total = 0;
  for (int i = 1; i <= 3; ++i) {
    const fs::path out = scratch / ("shard" + std::to_string(i));
    const auto result =
        run_sgdsim(sweep_args(scratch / "s.json", out, "--shard " + std::to_string(i) + "/3"));
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    const auto runs = entries(out / "runs");
    CHECK(runs.size() == 4);
    total += runs.size();
    seen.insert(runs.begin(), runs.end());
    // The shard's own index lists every point, the other shards' as pending.
    const auto index = parse_csv(read_text(out / "index.csv"), "index.csv");
    CHECK(index.rows.size() == 12);
    // --dry-run lists exactly the shard's points.
    const auto listed =
        run_sgdsim(sweep_args(scratch / "s.json", out, "--dry-run --shard " + std::to_string(i) + "/3"));
    CHECK(count_lines(listed.output) == 4);
    for (const auto& id : runs) CHECK_THAT(listed.output, Catch::Contains(id));
  }
  CHECK(total == 12);
  CHECK(seen.size() == 12);  // disjoint and covering

  // Copy the runs together (as from three machines) and rebuild the index.
  const fs::path merged = scratch / "merged";
  fs::create_directories(merged / "runs");
  for (int i = 1; i <= 3; ++i) {
    fs::copy(scratch / ("shard" + std::to_string(i)) / "runs", merged / "runs", fs::copy_options::recursive);
  }
  const auto rebuilt = run_sgdsim(sweep_args(scratch / "s.json", merged, "--index-only"));
  INFO(rebuilt.output);
  REQUIRE(rebuilt.exit_code == 0);
  CHECK(read_text(merged / "index.csv") == expected);
}

TEST_CASE("a failing point is recorded and the other points go on") {
  ScratchDir scratch("failure");
  write_text(scratch / "s.json", R"({
    "base": {"algorithm": {"kind": "dpsgd"}},
    "grid": {"algorithm.note": ["fine", "fake_fail", "also fine", "fake_invalid"]},
    "seeds": [1]
  })");
  const auto result = run_sgdsim(sweep_args(scratch / "s.json", scratch / "out", "-j 2"));
  INFO(result.output);
  CHECK(result.exit_code == 1);
  CHECK_THAT(result.output, Catch::Contains("FAILED") && Catch::Contains("made to fail"));
  // Rerunning helps the crash, not the bad input: each kind of failure gets its own advice.
  CHECK_THAT(
      result.output,
      Catch::Contains("1 refused as bad input (exit 2), which a rerun repeats: fix the sweep or its base"));
  CHECK_THAT(result.output, Catch::Contains("1 failed otherwise: rerun the same command to retry them"));
  const auto index = parse_csv(read_text(scratch / "out/index.csv"), "index.csv");
  REQUIRE(index.rows.size() == 4);
  const auto status = *index.column("status");
  CHECK(index.rows[0][status] == "ok");
  CHECK(index.rows[1][status] == "failed");
  CHECK(index.rows[2][status] == "ok");
  CHECK(index.rows[3][status] == "failed");
  const std::string record = read_text(scratch / "out/runs" / (index.rows[1][0] + ".failed.json"));
  CHECK_THAT(record, Catch::Contains("\"exit_code\": 3") && Catch::Contains("made to fail"));
  CHECK_FALSE(fs::exists(scratch / "out/runs" / index.rows[1][0]));

  // A sweep whose every point is rejected as bad input is itself bad input.
  write_text(scratch / "invalid.json",
             R"({"base": {}, "grid": {"algorithm.note": ["fake_invalid"]}, "seeds": [1, 2]})");
  const auto invalid = run_sgdsim(sweep_args(scratch / "invalid.json", scratch / "out2"));
  INFO(invalid.output);
  CHECK(invalid.exit_code == 2);
  CHECK_THAT(invalid.output, Catch::Contains("made invalid"));
}

TEST_CASE("bad sweep files and options exit with 2, name the problem and write nothing") {
  ScratchDir scratch("bad");
  write_text(scratch / "good.json", sweep_text);
  struct Case {
    std::string text;     // sweep file content ("" = use good.json)
    std::string options;  // extra options
    std::string message;
  };
  const std::vector<Case> cases = {
      {"{\"base\": {}, \"grid\": {\"a\": [1],}}", "", "line 1"},
      {R"({"base": {}, "grid": {"a": 1}})", "", "$.grid[\"a\"]"},
      {R"({"base": {}, "sedes": [1]})", "", "did you mean \"seeds\""},
      {R"({"base": "missing.json"})", "", "missing.json"},
      {R"({"base": {"algorithm": 3}, "grid": {"algorithm.kind": ["dpsgd"]}})", "", "$.algorithm"},
      {"", "--shard 4/3", "--shard"},
      {"", "--shard 0/3", "numbered from 1"},
      {"", "-j 0", "jobs"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    INFO(c.text << " " << c.options);
    fs::path file = scratch / "good.json";
    if (!c.text.empty()) write_text(file = scratch / ("bad" + std::to_string(i) + ".json"), c.text);
    const fs::path out = scratch / ("out" + std::to_string(i));
    const auto result = run_sgdsim(sweep_args(file, out, c.options));
    INFO(result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains(c.message));
    if (!c.text.empty()) CHECK_THAT(result.output, Catch::Contains(file.filename().string()));
    CHECK_FALSE(fs::exists(out));
  }
  const auto missing = run_sgdsim(sweep_args(scratch / "nope.json", scratch / "out"));
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Catch::Contains("nope.json"));
}
