#pragma once
// The points of a sweep: each is the base scenario plus overrides (set by dotted path) plus a seed, named by
// a stable id = a readable slug + a hash of the canonical JSON of {overrides, seed}. The id does not depend
// on the order in which points are enumerated, on sharding, or on labels, so run folders from different
// machines and different invocations line up.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/sweep_spec.hpp"

namespace sgdsim::analysis {

struct SweepPoint {
  std::size_t index = 0;  // position in the enumeration (explicit points, then grid odometer, then seeds)
  std::string id;
  std::string label;  // human-readable, without the seed; the same for all seeds of one setting
  json overrides;     // object: dotted path -> value (explicit point's `set` merged with the grid values)
  std::int64_t seed = 0;
  std::vector<std::string> parameters;  // one cell per parameter_columns() entry
};

// Index columns of the varied parameters: "point" when the sweep has explicit points, then every grid path.
std::vector<std::string> parameter_columns(const Sweep& sweep);

// The largest sweep `expand` accepts (points x grid combinations x seeds).
inline constexpr std::size_t max_sweep_points = 100'000;

// Every point of the sweep, in enumeration order (the last grid axis varies fastest, seeds innermost).
// Throws InputError when two points coincide.
std::vector<SweepPoint> expand(const Sweep& sweep);

// The scenario a point runs: the base with overrides applied (shorter paths first, so a whole object can be
// replaced and then refined), the seed set, and the name "<sweep name>/<id>". `run` resolves relative file
// paths against the scenario file's folder, so relative paths (keys declared keys::path) are rewritten to be
// relative to `scenario_dir`, the folder the point file goes to: from the base file's folder for values of
// the base, from the sweep file's folder for values the sweep sets.
json point_scenario(const Sweep& sweep, const SweepPoint& point, const std::string& scenario_dir);

// The stable id of a point.
std::string point_id(const std::string& label, const json& overrides, std::int64_t seed);

// The text a parameter value shows in the index and in labels: strings bare, everything else compact JSON.
std::string value_text(const json& value);

}  // namespace sgdsim::analysis
