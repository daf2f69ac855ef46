#pragma once
// Checking every point of a sweep before any runs: a bad point (a key that does not apply to the algorithm a
// point chose, a value out of range) is reported with the others at once, instead of failing minutes later
// after the good points before it have run.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/sweep_point.hpp"
#include "analysis/sweep_spec.hpp"

namespace sgdsim::analysis {

// A setting (a point without its seed) whose scenario is refused, the seeds it was to run with, and the
// refusal, which names the sweep file, the point's label and the JSON path in the point's scenario.
struct InvalidPoint {
  std::string label;
  std::vector<std::int64_t> seeds;
  std::string message;
};

// Validates the scenario of each of `points` as `sgdsim validate` does (data loaded, protocol built; nothing
// simulated, nothing written). Points that differ only in their seed are checked once, with the first seed:
// the checks do not depend on the seed.
std::vector<InvalidPoint> validate_points(const Sweep& sweep, const std::vector<const SweepPoint*>& points);

// The message of a sweep with invalid points: one line per setting with its refusal.
std::string invalid_points_message(const std::vector<InvalidPoint>& invalid, std::size_t settings_checked);

}  // namespace sgdsim::analysis
