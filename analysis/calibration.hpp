#pragma once
// `sgdsim calibrate`: measures this machine's device profile by running the real code — every compressor
// kind's first registered example, vector arithmetic, and model math — several repetitions each, taking the
// median. The profile is what a scenario's "compute.profile" names (docs/compute.md).
#include <cstddef>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace sgdsim::analysis {

struct CalibrationOptions {
  std::size_t dimension = std::size_t{1} << 20;  // coordinates per codec and vector measurement
  int repetitions = 7;                           // the median of these is reported
  double min_seconds = 0.05;                     // each repetition repeats the operation at least this long
  std::FILE* progress = nullptr;                 // one line per measurement, or nothing
};

// The profile document: host_speed (flop/s), memory_bandwidth (bytes/s), codecs (coordinates/s), and how and
// where it was measured.
nlohmann::json calibrate(const CalibrationOptions& options);

}  // namespace sgdsim::analysis
