// `sgdsim sweep` learns once and times many: the points that differ only in timing-only keys are re-timed
// from one live run of their group, index.csv says which, and the re-timed runs are byte for byte the live
// ones (`sweep --live`). A group whose source run is gone is run again; time-dependent points run live.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <map>

#include "analysis/csv_table.hpp"
#include "analysis_fixture.hpp"

using namespace sgdsim::analysis_tests;
using sgdsim::analysis::parse_csv;

namespace {

const char* const bandwidth_sweep = R"({
  "name": "bw",
  "base": {"seed": 1, "network": {"topology": {"kind": "ring", "nodes": 4}},
           "data": {"dataset": "synthetic", "kind": "logistic", "samples": 400, "features": 10},
           "model": {"kind": "logistic"}, "algorithm": {"kind": "dpsgd", "steps": 30, "lr": 0.1},
           "eval": {"every": 10}},
  "grid": {
    "algorithm.kind": ["dpsgd", "adpsgd"],
    "network.link.bandwidth": ["1Mbps", "20Mbps", "1Gbps"]
  },
  "seeds": [3]
})";

CommandResult real(const std::string& arguments) {
  return run_command("env -u SGDSIM_RUNNER " + quote(SGDSIM_BINARY) + " " + arguments);
}

}  // namespace

TEST_CASE("a sweep re-times the points that differ only in timing, exactly as live runs") {
  ScratchDir scratch("retime-sweep");
  write_text(scratch / "bw.json", bandwidth_sweep);
  const auto sweep = [&](const std::string& out, const std::string& extra) {
    const auto result = real("sweep " + quote((scratch / "bw.json").string()) + " -o " +
                             quote((scratch / out).string()) + " -j 2 " + extra);
    INFO(result.output);
    REQUIRE(result.exit_code == 0);
    return parse_csv(read_text(scratch / out / "index.csv"), "index.csv");
  };
  const auto index = sweep("retimed", "");
  const auto live = sweep("live", "--live");
  REQUIRE(index.rows.size() == 6);
  const auto id = *index.column("id"), kind = *index.column("algorithm.kind"),
             timing = *index.column("timing"), from = *index.column("retimed_from");
  std::map<std::string, int> retimed;
  for (std::size_t r = 0; r < index.rows.size(); ++r) {
    const auto& row = index.rows[r];
    INFO(row[id]);
    CHECK(live.rows[r][timing] == "live");
    if (row[kind] == "adpsgd") {
      CHECK(row[timing] == "live");  // AD-PSGD depends on time: never re-timed
    } else if (row[timing] == "retimed") {
      ++retimed[row[from]];
      CHECK(read_text(scratch / "retimed/runs" / row[from] / "resolved.json").find("dpsgd") !=
            std::string::npos);
    }
    // Every figure is the live run's, to the byte.
    CHECK(read_text(scratch / "retimed/runs" / row[id] / "trace.csv") ==
          read_text(scratch / "live/runs" / row[id] / "trace.csv"));
    CHECK(read_text(scratch / "retimed/runs" / row[id] / "resolved.json") ==
          read_text(scratch / "live/runs" / row[id] / "resolved.json"));
  }
  REQUIRE(retimed.size() == 1);         // one live D-PSGD run ...
  CHECK(retimed.begin()->second == 2);  // ... the two other bandwidths re-timed from it

  // The source run is lost (and one re-timed run with it): the rerun records it again and re-times from it.
  const std::string source = retimed.begin()->first;
  fs::remove_all(scratch / "retimed/runs" / source);
  std::string victim;
  for (const auto& row : index.rows)
    if (row[from] == source) victim = row[id];
  fs::remove_all(scratch / "retimed/runs" / victim);
  const auto again = sweep("retimed", "");
  for (std::size_t r = 0; r < again.rows.size(); ++r) {
    CHECK(again.rows[r] == index.rows[r]);
    CHECK(read_text(scratch / "retimed/runs" / again.rows[r][id] / "trace.csv") ==
          read_text(scratch / "live/runs" / again.rows[r][id] / "trace.csv"));
  }
}
