// The calibration's arithmetic without namespaces: the fit recovers known factors, piecewise by size, and the
// ping-pong's round trips become one-way times.
#include <catch2/catch.hpp>

#include "emulation/network_fit.hpp"
#include "emulation/transfer_benchmark.hpp"

using namespace sgdsim;
using emulation::Transfer;

namespace {

// Transfers a known calibration would predict exactly.
std::vector<Transfer> synthetic(const sim::NetworkCalibration& truth, const std::vector<double>& sizes,
                                const std::vector<double>& rates, double latency) {
  std::vector<Transfer> out;
  for (double bytes : sizes)
    for (double rate : rates) {
      Transfer t{bytes, rate, latency, 0};
      t.seconds = emulation::predicted_seconds(truth, t);
      out.push_back(t);
    }
  return out;
}

}  // namespace

TEST_CASE("without latency the fit recovers each size's bandwidth factor and keeps the latency factor 1") {
  sim::NetworkCalibration truth;
  truth.segments = {{0, 1, 0.3}, {5000, 1, 0.7}, {50000, 1, 0.93}};
  const std::vector<double> sizes{1000, 10000, 100000};
  const auto fit = emulation::fit_calibration(synthetic(truth, sizes, {1.25e6, 12.5e6, 125e6}, 0));
  REQUIRE(fit.segments.size() == 3);
  CHECK(fit.segments[0].from_bytes == 0);
  CHECK(fit.segments[1].from_bytes == 3162);   // floor(sqrt(1000 * 10000))
  CHECK(fit.segments[2].from_bytes == 31622);  // floor(sqrt(10000 * 100000))
  for (std::size_t k = 0; k < 3; ++k) {
    CHECK(fit.segments[k].latency_factor == 1);
    CHECK(fit.segments[k].bandwidth_factor == Approx(truth.segments[k].bandwidth_factor).epsilon(1e-12));
  }
}

TEST_CASE("with a latency the fit recovers both factors of a size measured at several rates") {
  sim::NetworkCalibration truth;
  truth.segments = {{0, 4.0, 0.5}};
  const auto fit = emulation::fit_calibration(synthetic(truth, {20000}, {1.25e6, 12.5e6, 125e6}, 100e-6));
  REQUIRE(fit.segments.size() == 1);
  CHECK(fit.segments[0].latency_factor == Approx(4.0).epsilon(1e-9));
  CHECK(fit.segments[0].bandwidth_factor == Approx(0.5).epsilon(1e-9));
}

TEST_CASE("the fit minimises the relative error of noisy transfers of one size") {
  // Two rates, 30 % and 10 % slower than the link: one factor between the two.
  const std::vector<Transfer> transfers{{1e6, 1e6, 0, 1.3}, {1e6, 1e7, 0, 0.11}};
  const auto fit = emulation::fit_calibration(transfers);
  // b = sum(v) / sum(v^2) with v = 1/1.3 and 0.1/0.11.
  const double v1 = 1 / 1.3, v2 = 0.1 / 0.11;
  CHECK(1 / fit.segments[0].bandwidth_factor == Approx((v1 + v2) / (v1 * v1 + v2 * v2)).epsilon(1e-12));
  for (const Transfer& t : transfers)
    CHECK(std::abs(emulation::predicted_seconds(fit, t) - t.seconds) / t.seconds < 0.1);
}

TEST_CASE("a transfer faster than its link (within the qdisc's burst) gets factor 1, not more") {
  const auto fit = emulation::fit_calibration({{1000, 1.25e7, 0, 20e-6}});  // the link alone: 80 us
  CHECK(fit.segments[0].bandwidth_factor == 1);
}

TEST_CASE("the fit refuses nothing to fit and impossible transfers") {
  CHECK_THROWS_AS(emulation::fit_calibration({}), std::invalid_argument);
  CHECK_THROWS_AS(emulation::fit_calibration({{1000, 1e6, 0, 0}}), std::invalid_argument);
  CHECK_THROWS_AS(emulation::fit_calibration({{0, 1e6, 0, 1}}), std::invalid_argument);
  CHECK_THROWS_AS(emulation::fit_calibration({{1000, -1, 0, 1}}), std::invalid_argument);
}

TEST_CASE("the ping-pong schedule sends each size after one byte, and round trips become one-way times") {
  const std::vector<double> sizes{1000, 50000};
  const std::size_t repeats = 3;
  const auto schedule = emulation::ping_pong_schedule(sizes, repeats);
  REQUIRE(schedule.nodes.size() == 2);
  std::vector<std::uint64_t> sent;
  std::size_t markers = 0;
  observation::OperationCursor cursor(schedule.nodes[0]);
  while (!cursor.done()) {
    const auto& op = cursor.next();
    if (op.kind == observation::Operation::send) {
      sent.push_back(op.bytes);
      CHECK(op.peer == 1);
    }
    if (op.kind == observation::Operation::observe) ++markers;
  }
  CHECK(markers == 3 * (repeats + 1));
  REQUIRE(sent.size() == 3 * (repeats + 1));
  CHECK(sent.front() == 1);
  CHECK(sent[repeats + 1] == 1000);
  CHECK(sent.back() == 50000);

  // Round trips: 1 byte 100 us (warm-up 1 ms), 1000 bytes 1.1 ms, 50000 bytes 40 ms (one 90 ms outlier).
  std::vector<double> rounds{1e-3, 1e-4, 1e-4, 1e-4, 5e-3, 1.1e-3, 1.1e-3, 1.1e-3, 0.05, 0.04, 0.09, 0.04};
  std::vector<double> times;
  double clock = 0;
  for (double r : rounds) times.push_back(clock += r);
  const auto transfers = emulation::one_way_transfers(sizes, repeats, times, 1.25e6);
  REQUIRE(transfers.size() == 2);
  CHECK(transfers[0].bytes == 1000);
  CHECK(transfers[0].bandwidth == 1.25e6);
  CHECK(transfers[0].latency == 0);
  CHECK(transfers[0].seconds == Approx(1.1e-3 - 0.5e-4).epsilon(1e-9));
  CHECK(transfers[1].seconds == Approx(0.04 - 0.5e-4).epsilon(1e-9));  // the median, not the outlier
  CHECK_THROWS(emulation::one_way_transfers(sizes, repeats, {0.1}, 1.25e6));
}
