// The variance columns of data-parallel runs (eval.variance_draws): what they measure and what they leave
// alone.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using nlohmann::json;

namespace {
json data_parallel(json compressor, std::int64_t draws) {
  return {{"seed", 3},
          {"network", {{"topology", {{"kind", "complete"}, {"nodes", 4}}}}},
          {"data",
           {{"dataset", "synthetic"},
            {"kind", "logistic"},
            {"samples", 2000},
            {"features", 40},
            {"batch_size", 8}}},
          {"model", {{"kind", "logistic"}}},
          {"algorithm", {{"kind", "data_parallel"}, {"steps", 40}, {"lr", 0.2}, {"compressor", compressor}}},
          {"eval", {{"every", 10}, {"variance_draws", draws}, {"variance_samples", 1000}}}};
}
double number(const std::string& cell) {
  REQUIRE_FALSE(cell.empty());
  return std::stod(cell);
}
}  // namespace

TEST_CASE(
    "without compression the estimator's variance is the sampling variance and quantization adds to it") {
  Run plain = run_scenario(data_parallel({{"kind", "none"}}, 8), "variance-none");
  Run coarse = run_scenario(data_parallel({{"kind", "qsgd"}, {"levels", 1}}, 8), "variance-qsgd");
  REQUIRE(plain.exit_code == 0);
  REQUIRE(coarse.exit_code == 0);
  REQUIRE(plain.trace.rows.size() == 5);
  REQUIRE(coarse.trace.rows.size() == 5);
  for (std::size_t r = 0; r < plain.trace.rows.size(); ++r) {
    auto row = plain.trace.rows[r];
    INFO("row " << r);
    CHECK(number(row["sampling_variance"]) > 0);
    CHECK(row["estimator_variance"] == row["sampling_variance"]);
    auto noisy = coarse.trace.rows[r];
    // QSGD with one level multiplies a coordinate's variance by up to √d; the draws are shared, so the added
    // variance shows in every row, not just on average.
    CHECK(number(noisy["estimator_variance"]) > 2 * number(noisy["sampling_variance"]));
    // NUQSGD's metric, centred on the estimator's own mean: positive, at most 1 (a variance over the second
    // moment), and larger with the coarse quantizer.
    CHECK(number(row["estimator_nvar"]) > 0);
    CHECK(number(noisy["estimator_nvar"]) <= 1);
    CHECK(number(noisy["estimator_nvar"]) > number(row["estimator_nvar"]));
  }
  // The draws do not depend on the compressor: at the common initial model both runs sample the same batches.
  CHECK(coarse.trace.rows[0]["sampling_variance"] == plain.trace.rows[0]["sampling_variance"]);
}

TEST_CASE("measuring the variance is free and reproducible") {
  const json compressor = {{"kind", "nuqsgd"}, {"table", "code"}, {"bits", 4}};
  Run measured = run_scenario(data_parallel(compressor, 4), "variance-on");
  const Run again = run_scenario(data_parallel(compressor, 4), "variance-again");
  Run off = run_scenario(data_parallel(compressor, 0), "variance-off");
  REQUIRE(measured.exit_code == 0);
  REQUIRE(again.exit_code == 0);
  REQUIRE(off.exit_code == 0);
  CHECK(measured.trace_text == again.trace_text);
  CHECK(off.trace.columns.size() + 3 == measured.trace.columns.size());
  CHECK(measured.trace.columns.back() == "estimator_nvar");
  REQUIRE(off.trace.rows.size() == measured.trace.rows.size());
  for (std::size_t r = 0; r < off.trace.rows.size(); ++r) {
    for (const std::string& column : off.trace.columns) {
      INFO(column << " row " << r);
      CHECK(off.trace.rows[r][column] == measured.trace.rows[r][column]);
    }
  }
}
