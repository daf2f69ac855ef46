#pragma once
// Fitting the flow model's factors to measured transfers, piecewise by message size as SMPI's calibration
// does (docs/validation.md, "Calibration"): one message of s bytes alone on one link of bandwidth B and
// latency L takes latency_factor * L + s / (bandwidth_factor * B) on SimGrid's CM02 model.
#include <cstddef>
#include <vector>

#include "sim/network_calibration.hpp"

namespace sgdsim::emulation {

// One measured one-way transfer (or the median of several).
struct Transfer {
  double bytes = 0;      // message size
  double bandwidth = 0;  // the link's bytes per second
  double latency = 0;    // the link's nominal latency, s (0 where none is emulated)
  double seconds = 0;    // measured
};

// The model's time for `t` under `calibration` (no calibration: factors 1).
double predicted_seconds(const sim::NetworkCalibration& calibration, const Transfer& t);

// One segment per distinct measured size, its bounds at the geometric means of neighbouring sizes (the first
// from 0 bytes), its factors minimising the squared relative error of its transfers. Where no transfer has a
// latency, the latency factor stays 1 (only the bandwidth factor can be seen). A bandwidth factor is at most
// 1: SimGrid never lets a flow exceed its link. Throws std::invalid_argument on no transfers or a
// non-positive size, bandwidth or time.
sim::NetworkCalibration fit_calibration(const std::vector<Transfer>& transfers);

}  // namespace sgdsim::emulation
