// `sgdsim sweep` on damaged or outdated output folders (fake runner): corrupt point files, summaries cut
// short or holding NaN, runs made from an older base scenario when points/ is gone, and sweep files that are
// FIFOs.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "analysis/csv_table.hpp"
#include "analysis_fixture.hpp"

using namespace sgdsim::analysis_tests;
using sgdsim::analysis::parse_csv;

namespace {

// 2 bandwidths x 2 seeds = 4 points.
std::string sweep_text(int nodes = 4) {
  return R"({"name": "rec",
    "base": {"network": {"topology": {"kind": "ring", "nodes": )" +
         std::to_string(nodes) + R"(}}, "algorithm": {"kind": "dpsgd", "steps": 50}},
    "grid": {"network.link.bandwidth": ["10Mbps", "100Mbps"]},
    "seeds": [1, 2]})";
}

std::string sweep_args(const fs::path& sweep, const fs::path& out, const std::string& more = "") {
  return "sweep " + quote(sweep.string()) + " -o " + quote(out.string()) + " " + more;
}

std::vector<std::string> ids(const fs::path& out) {
  std::vector<std::string> result;
  for (const auto& row : parse_csv(read_text(out / "index.csv"), "index.csv").rows) result.push_back(row[0]);
  return result;
}

}  // namespace

TEST_CASE("a corrupt point file is rewritten, not a reason to stop the sweep") {
  ScratchDir scratch("corrupt-point");
  write_text(scratch / "s.json", sweep_text());
  REQUIRE(run_sgdsim(sweep_args(scratch / "s.json", scratch / "out")).exit_code == 0);
  const std::string index = read_text(scratch / "out/index.csv");
  const auto all = ids(scratch / "out");
  const std::string good = read_text(scratch / "out/points" / (all[0] + ".json"));
  write_text(scratch / "out/points" / (all[0] + ".json"), good.substr(0, good.size() / 2));  // cut short
  write_text(scratch / "out/points" / (all[1] + ".json"), "[1, 2]");                         // not a scenario
  const auto rerun = run_sgdsim(sweep_args(scratch / "s.json", scratch / "out"));
  INFO(rerun.output);
  CHECK(rerun.exit_code == 0);
  CHECK_THAT(rerun.output, Catch::Contains("4 already complete"));
  CHECK(read_text(scratch / "out/points" / (all[0] + ".json")) == good);
  CHECK(read_text(scratch / "out/index.csv") == index);
}

TEST_CASE("a summary cut short or holding NaN makes --index-only exit 1 naming it, and a rerun retries it") {
  ScratchDir scratch("unreadable");
  write_text(scratch / "s.json", sweep_text());
  REQUIRE(run_sgdsim(sweep_args(scratch / "s.json", scratch / "out")).exit_code == 0);
  const std::string index = read_text(scratch / "out/index.csv");
  const auto all = ids(scratch / "out");
  const fs::path cut = scratch / "out/runs" / all[0] / "summary.json";
  const fs::path nan = scratch / "out/runs" / all[2] / "summary.json";
  const std::string text = read_text(cut);
  write_text(cut, text.substr(0, text.size() / 2));
  write_text(nan, R"({"final": {"step": 50, "train_loss": NaN}})");

  const auto listed = run_sgdsim(sweep_args(scratch / "s.json", scratch / "out", "--index-only"));
  INFO(listed.output);
  CHECK(listed.exit_code == 1);
  CHECK_THAT(listed.output, Catch::Contains(cut.string()) && Catch::Contains(nan.string()));
  const auto table = parse_csv(read_text(scratch / "out/index.csv"), "index.csv");
  CHECK(table.rows[0][*table.column("status")] == "unreadable");
  CHECK(table.rows[2][*table.column("status")] == "unreadable");

  const auto rerun = run_sgdsim(sweep_args(scratch / "s.json", scratch / "out"));
  INFO(rerun.output);
  CHECK(rerun.exit_code == 0);
  CHECK_THAT(rerun.output, Catch::Contains("2 already complete, running 2"));
  CHECK(read_text(scratch / "out/index.csv") == index);
}

TEST_CASE("a run whose resolved.json is cut short is retried") {
  ScratchDir scratch("resolved-cut");
  write_text(scratch / "s.json", sweep_text());
  REQUIRE(run_sgdsim(sweep_args(scratch / "s.json", scratch / "out")).exit_code == 0);
  const std::string index = read_text(scratch / "out/index.csv");
  const fs::path resolved = scratch / "out/runs" / ids(scratch / "out")[3] / "resolved.json";
  write_text(resolved, read_text(resolved).substr(0, 10));
  const auto rerun = run_sgdsim(sweep_args(scratch / "s.json", scratch / "out"));
  INFO(rerun.output);
  CHECK(rerun.exit_code == 0);
  CHECK_THAT(rerun.output, Catch::Contains("3 already complete, running 1"));
  CHECK(read_text(scratch / "out/index.csv") == index);
}

TEST_CASE("runs made from an older base are refused from their resolved.json, even without points/") {
  ScratchDir scratch("stale");
  write_text(scratch / "s.json", sweep_text(4));
  REQUIRE(run_sgdsim(sweep_args(scratch / "s.json", scratch / "out")).exit_code == 0);
  // Merged shards: only runs/ was copied.
  fs::create_directories(scratch / "merged");
  fs::copy(scratch / "out/runs", scratch / "merged/runs", fs::copy_options::recursive);
  write_text(scratch / "s.json", sweep_text(5));  // the base changed since

  for (const char* mode : {"--index-only", ""}) {
    INFO(mode);
    const auto result = run_sgdsim(sweep_args(scratch / "s.json", scratch / "merged", mode));
    INFO(result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains("resolved.json: $.network.topology.nodes") &&
                                  Catch::Contains("different scenario"));
    CHECK_FALSE(fs::exists(scratch / "merged/index.csv"));
    CHECK_FALSE(fs::exists(scratch / "merged/points"));
  }
  // The unchanged sweep still accepts the merged runs.
  write_text(scratch / "s.json", sweep_text(4));
  const auto same = run_sgdsim(sweep_args(scratch / "s.json", scratch / "merged", "--index-only"));
  INFO(same.output);
  CHECK(same.exit_code == 0);
  CHECK(read_text(scratch / "merged/index.csv") == read_text(scratch / "out/index.csv"));
}

TEST_CASE("a sweep file or base scenario that is a FIFO is refused without blocking", "[fifo]") {
  ScratchDir scratch("fifo");
  REQUIRE(mkfifo((scratch / "s.json").c_str(), 0600) == 0);
  const auto sweep = run_sgdsim(sweep_args(scratch / "s.json", scratch / "out"));
  CHECK(sweep.exit_code == 2);
  CHECK_THAT(sweep.output, Catch::Contains("s.json: is a FIFO"));
  REQUIRE(mkfifo((scratch / "base.json").c_str(), 0600) == 0);
  write_text(scratch / "t.json", R"({"base": "base.json", "seeds": [1]})");
  const auto base = run_sgdsim(sweep_args(scratch / "t.json", scratch / "out"));
  CHECK(base.exit_code == 2);
  CHECK_THAT(base.output, Catch::Contains("base.json: is a FIFO") && Catch::Contains("$.base"));
  CHECK_FALSE(fs::exists(scratch / "out"));
}
