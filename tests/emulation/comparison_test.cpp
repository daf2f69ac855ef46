// The comparison arithmetic of `sgdsim emulate` (emulation/comparison.hpp): intervals between observe
// markers, seconds per step split into compute and communication, relative errors and their quantiles. No
// namespaces.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "emulation/comparison.hpp"

using namespace sgdsim;
using namespace sgdsim::emulation;

namespace {
protocols::NodeStats at(double time, double gradient_s, double encode_s = 0) {
  protocols::NodeStats stats;
  stats.time = time;
  stats.work_s[0] = gradient_s;
  stats.work_s[1] = encode_s;
  return stats;
}
}  // namespace

TEST_CASE("quantiles interpolate between order statistics (R's type 7)") {
  CHECK(quantile({3.0, 1.0, 2.0}, 0.5) == 2.0);
  CHECK(quantile({1.0, 2.0, 3.0, 4.0}, 0.5) == Approx(2.5));
  // 10 values 1..10: position 0.9 * 9 = 8.1 -> 9 + 0.1 * (10 - 9)
  CHECK(quantile({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 0.9) == Approx(9.1));
  CHECK(quantile({5.0}, 0.9) == 5.0);
  CHECK(std::isnan(quantile({}, 0.5)));
}

TEST_CASE("intervals split each node's time between markers into compute and communication per step") {
  const std::vector<std::int64_t> steps = {0, 2, 4};
  // Node 0: simulated 1 s to step 2 (0.4 s of it computing), then 1.5 s more (0.4 s computing).
  const std::vector<std::vector<protocols::NodeStats>> simulated = {
      {at(0, 0), at(1.0, 0.3, 0.1), at(2.5, 0.6, 0.2)}};
  // Measured: 1.2 s (0.4 computing), then 1.2 s (0.5 computing).
  const std::vector<std::vector<protocols::NodeStats>> measured = {{at(0, 0), at(1.2, 0.4), at(2.4, 0.9)}};
  const auto rows = intervals(simulated, measured, steps);
  REQUIRE(rows.size() == 2);  // step 0 spans no step
  CHECK(rows[0].step == 2);
  CHECK(rows[0].steps == 2);
  CHECK(rows[0].simulated_compute_s == Approx(0.2));
  CHECK(rows[0].simulated_communication_s == Approx(0.3));
  CHECK(rows[0].measured_compute_s == Approx(0.2));
  CHECK(rows[0].measured_communication_s == Approx(0.4));
  CHECK(rows[1].simulated_communication_s == Approx(0.55));
  CHECK(rows[1].measured_communication_s == Approx(0.35));

  const ErrorSummary summary = summarize(rows);
  CHECK(summary.intervals == 2);
  const double e0 = (0.4 - 0.3) / 0.3, e1 = (0.35 - 0.55) / 0.55;
  CHECK(summary.median_relative == Approx((std::abs(e0) + std::abs(e1)) / 2));
  CHECK(summary.median_signed == Approx((e0 + e1) / 2));
  // |e0| = 0.333 < |e1| = 0.364: the 0.9-quantile of two values is 90 % of the way from the first
  CHECK(summary.p90_relative == Approx(std::abs(e0) + 0.9 * (std::abs(e1) - std::abs(e0))));

  std::ostringstream csv;
  write_comparison(csv, rows);
  CHECK(csv.str().rfind("node,step,steps,simulated_compute_s,simulated_communication_s,measured_compute_s,"
                        "measured_communication_s,relative_error\n0,2,2,",
                        0) == 0);
}

TEST_CASE("an interval the model spends no time waiting in has no relative error") {
  const std::vector<std::vector<protocols::NodeStats>> simulated = {{at(0, 0), at(1.0, 1.0)}};
  const std::vector<std::vector<protocols::NodeStats>> measured = {{at(0, 0), at(1.1, 1.0)}};
  const auto rows = intervals(simulated, measured, {0, 1});
  REQUIRE(rows.size() == 1);
  CHECK(summarize(rows).intervals == 0);
  CHECK(std::isnan(summarize(rows).median_relative));
}

TEST_CASE("sides of different shapes are refused") {
  const std::vector<std::vector<protocols::NodeStats>> one = {{at(0, 0), at(1, 0)}};
  const std::vector<std::vector<protocols::NodeStats>> two = {{at(0, 0), at(1, 0)}, {at(0, 0), at(1, 0)}};
  CHECK_THROWS_AS(intervals(one, two, {0, 1}), std::invalid_argument);
  CHECK_THROWS_AS(intervals(one, one, {0, 1, 2}), std::invalid_argument);
}
