// `sgdsim table`: trace values per series at given steps, mean [min, max] over seeds.
#include <catch2/catch.hpp>

#include "analysis/csv_table.hpp"
#include "analysis/run_groups.hpp"
#include "analysis/value_table.hpp"
#include "analysis_fixture.hpp"
#include "common/error.hpp"

using namespace sgdsim;
using namespace sgdsim::analysis;
using namespace sgdsim::analysis_tests;

TEST_CASE("values at a step are averaged over seeds, and a missing value is never averaged away") {
  // Loss scale/(1 + step): dpsgd seeds with scale 1 and 3; choco's second trace ends at step 20.
  std::vector<RunData> runs = {
      fake_run("dpsgd", "1Mbps", 1, 1, 100, 0.5), fake_run("dpsgd", "1Mbps", 2, 3, 100, 0.5),
      fake_run("choco", "1Mbps", 1, 1, 10, 0.5), fake_run("choco", "1Mbps", 2, 1, 10, 0.5)};
  runs[3].trace.rows.resize(3);
  const auto groups = group_runs(runs, grouping_keys(runs, {}, {"seed"}));
  const auto rows = value_rows(groups, {"train_loss", "bits_sent"}, {10, 40});
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].series == "dpsgd");
  CHECK(*rows[0].step == 10);
  REQUIRE(rows[0].cells[0].value);
  CHECK(rows[0].cells[0].value->mean == Approx(2.0 / 11));
  CHECK(rows[0].cells[0].value->min == Approx(1.0 / 11));
  CHECK(rows[0].cells[0].value->max == Approx(3.0 / 11));
  CHECK(rows[1].cells[1].value->mean == Approx(4000));
  CHECK(rows[2].cells[0].present == 2);
  CHECK_FALSE(rows[3].cells[0].value);  // choco at step 40: one seed has no row
  CHECK(rows[3].cells[0].present == 1);
  const auto last = value_rows(groups, {"train_loss"}, {});
  REQUIRE(last.size() == 2);
  CHECK_FALSE(last[1].step);
  CHECK(last[1].cells[0].value->max == Approx(1.0 / 21));  // the short trace's last row
  CHECK(last[1].cells[0].value->min == Approx(1.0 / 41));
  const std::string md = value_markdown(rows, {"train_loss", "bits_sent"});
  CHECK_THAT(md, Catch::Contains("| series | step | train_loss | bits_sent |"));
  CHECK_THAT(md, Catch::Contains("| choco | 40 | – (1/2) |"));
  const CsvTable csv = parse_csv(value_csv(rows, {"train_loss", "bits_sent"}), "csv");
  REQUIRE(csv.rows.size() == 4);
  CHECK(csv.rows[3][*csv.column("train_loss_seeds")] == "1");
  CHECK_THROWS_AS(value_rows(groups, {"nothing"}, {}), InputError);
  // A column only some runs have (failure columns, say) is missing in the others.
  runs[0].trace = parse_csv("step,train_loss,messages_lost\n0,1,\n40,0.5,7\n", "with-failures");
  const auto partial = value_rows(group_runs(runs, grouping_keys(runs, {}, {"seed"})), {"messages_lost"}, {});
  CHECK(partial[0].cells[0].present == 1);
  CHECK_FALSE(partial[0].cells[0].value);
  CHECK(partial[1].cells[0].present == 0);
}

TEST_CASE("sgdsim table writes a sweep's final values and rejects what it cannot do") {
  ScratchDir scratch("table");
  const std::string dir = quote(fake_method_sweep(scratch.path()).string());
  const auto md = run_sgdsim("table " + dir + " --column loss --column accuracy -o " +
                             quote((scratch / "t.md").string()));
  INFO(md.output);
  REQUIRE(md.exit_code == 0);
  const std::string table = read_text(scratch / "t.md");
  CHECK_THAT(table, Catch::Contains("| series | step | train_loss | test_accuracy |"));
  CHECK_THAT(table, Catch::Contains(" | last | "));
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"--column nothing", "no column \"nothing\""},
           {"--column loss -o " + quote((scratch / "t.txt").string()), ".md or .csv"}}) {
    const auto result = run_sgdsim("table " + dir + " " + args);
    INFO(args << "\n" << result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains(message));
  }
}
