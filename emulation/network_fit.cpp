#include "emulation/network_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace sgdsim::emulation {

double predicted_seconds(const sim::NetworkCalibration& calibration, const Transfer& t) {
  const sim::CalibrationSegment segment =
      calibration.empty() ? sim::CalibrationSegment{} : calibration.at(t.bytes);
  return segment.latency_factor * t.latency + t.bytes / (segment.bandwidth_factor * t.bandwidth);
}

namespace {

// Factors of one size's transfers. With u = L / t and v = (s / B) / t, the relative residual of a transfer is
// 1 - a u - b v (a the latency factor, b the inverse bandwidth factor): linear least squares.
sim::CalibrationSegment fit_segment(const std::vector<Transfer>& transfers) {
  double uu = 0, uv = 0, vv = 0, u1 = 0, v1 = 0;
  for (const Transfer& t : transfers) {
    const double u = t.latency / t.seconds, v = t.bytes / t.bandwidth / t.seconds;
    uu += u * u, uv += u * v, vv += v * v, u1 += u, v1 += v;
  }
  sim::CalibrationSegment segment;
  const double det = uu * vv - uv * uv;
  if (uu > 0 && det > 1e-12 * uu * vv) {
    const double a = (u1 * vv - v1 * uv) / det, b = (v1 * uu - u1 * uv) / det;
    if (a > 0 && b > 0) {
      segment.latency_factor = a;
      segment.bandwidth_factor = 1 / b;
      return segment;
    }
  }
  // No latency to see (or the two cannot be told apart): latency factor 1, b fitted to what the latency
  // leaves, or to the whole time when the latency alone exceeds it.
  double leftover = 0;
  for (const Transfer& t : transfers)
    leftover += (1 - t.latency / t.seconds) * (t.bytes / t.bandwidth / t.seconds);
  const double b = leftover > 0 ? leftover / vv : v1 / vv;
  segment.bandwidth_factor = 1 / b;
  return segment;
}

// SimGrid bounds a flow by the link's bandwidth whatever its factor: a factor above 1 (a small message that
// leaves within the qdisc's burst, faster than the rate) cannot be expressed and is capped.
sim::CalibrationSegment capped(sim::CalibrationSegment segment) {
  segment.bandwidth_factor = std::min(segment.bandwidth_factor, 1.0);
  return segment;
}

}  // namespace

sim::NetworkCalibration fit_calibration(const std::vector<Transfer>& transfers) {
  if (transfers.empty()) throw std::invalid_argument("fit_calibration: no transfers");
  std::map<double, std::vector<Transfer>> by_size;
  for (const Transfer& t : transfers) {
    if (!(t.bytes > 0) || !(t.bandwidth > 0) || !(t.seconds > 0) || !(t.latency >= 0))
      throw std::invalid_argument("fit_calibration: a transfer needs a positive size, bandwidth and time");
    by_size[t.bytes].push_back(t);
  }
  sim::NetworkCalibration calibration;
  double previous = 0;
  for (const auto& [bytes, group] : by_size) {
    sim::CalibrationSegment segment = capped(fit_segment(group));
    segment.from_bytes = calibration.empty() ? 0 : std::floor(std::sqrt(previous * bytes));
    calibration.segments.push_back(segment);
    previous = bytes;
  }
  return calibration;
}

}  // namespace sgdsim::emulation
