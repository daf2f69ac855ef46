#pragma once
// `sgdsim calibrate`: measures this machine's device profile by running the real code — every registered
// example of every compressor kind (or exactly the codec configurations some scenarios use), vector
// arithmetic, and model math — several repetitions each, taking the median. The profile is what a scenario's
// "compute.profile" names (docs/compute.md).
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sgdsim::analysis {

struct CalibrationOptions {
  std::size_t dimension = std::size_t{1} << 20;  // coordinates per codec and vector measurement
  int repetitions = 7;                           // the median of these is reported
  double min_seconds = 0.05;                     // each repetition repeats the operation at least this long
  std::FILE* progress = nullptr;                 // one line per measurement, or nothing
  // Scenario or sweep files: measure exactly the codec configurations they use (none: every kind's
  // registered examples).
  std::vector<std::string> scenarios;
  bool examples = false;  // with scenarios: every kind's registered examples too
  // A profile to merge the measured prices into (its other entries are kept); empty: a new profile.
  nlohmann::json into;
  // A reference profile for a loaded machine: its codec configurations are measured too, and every measured
  // figure is multiplied by the load factor, the geometric mean of reference / measured over them.
  nlohmann::json reference;
  std::string reference_name;
};

// The codec configurations (resolved compressor objects, one per priced configuration) that the runs of a
// scenario or sweep file use, in the order they are met.
std::vector<nlohmann::json> used_configurations(const std::string& file);

// The profile document: host_speed (flop/s), memory_bandwidth (bytes/s), codecs (a list of priced
// configurations, coordinates/s, each with its source), and how and where it was measured.
nlohmann::json calibrate(const CalibrationOptions& options);

}  // namespace sgdsim::analysis
