#include "sim/network_calibration.hpp"

#include <algorithm>
#include <stdexcept>

namespace sgdsim::sim {

const CalibrationSegment& NetworkCalibration::at(double bytes) const {
  if (segments.empty()) throw std::logic_error("NetworkCalibration::at on an empty calibration");
  // The last segment that starts at or below `bytes`.
  auto after = std::upper_bound(segments.begin(), segments.end(), bytes,
                                [](double size, const CalibrationSegment& s) { return size < s.from_bytes; });
  return after == segments.begin() ? segments.front() : *(after - 1);
}

}  // namespace sgdsim::sim
