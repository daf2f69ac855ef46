#pragma once
// A calibration of the flow model, as SMPI's: piecewise in the message's simulated size, a factor on the
// route's latency and one on the link bandwidth a single flow may use (SimGrid's network-model factor
// callbacks). Fitted by `sgdsim calibrate --network` (docs/validation.md, "Calibration").
#include <cstddef>
#include <vector>

namespace sgdsim::sim {

struct CalibrationSegment {
  double from_bytes = 0;        // the segment holds sizes from here to the next segment's from_bytes
  double latency_factor = 1;    // multiplies the route's latency
  double bandwidth_factor = 1;  // multiplies the bandwidth a flow may use on each link
};

struct NetworkCalibration {
  // Ascending from_bytes, the first 0; empty: no calibration (factors 1).
  std::vector<CalibrationSegment> segments;
  bool empty() const { return segments.empty(); }
  // The segment of a message of `bytes` (simulated size).
  const CalibrationSegment& at(double bytes) const;
};

}  // namespace sgdsim::sim
