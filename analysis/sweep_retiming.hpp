#pragma once
// Learn once, time many, in a sweep (docs/workflow.md): the points that differ only in timing-only keys form
// a group — same seed, same other overrides, the same timing-only paths set — whose first point (in
// enumeration order) runs live and records its schedule, and whose other points are re-timed from it
// (`sgdsim retime`). Groups are formed within the points one invocation runs (one shard), so a shard never
// waits for another. A point whose behaviour depends on time (a time-dependent protocol or collective, a
// receive timeout) is never grouped.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/sweep_point.hpp"
#include "analysis/sweep_spec.hpp"

namespace sgdsim::analysis {

struct Retiming {
  std::string source;             // the id of the point it is re-timed from
  std::vector<std::string> sets;  // `--set path=value` arguments of `sgdsim retime`
};

struct RetimingPlan {
  std::set<std::string> record;             // points that run live with --record
  std::map<std::string, Retiming> retimed;  // points re-timed from another
};

// The plan for `points` (their scenarios as point_scenario(sweep, point, scenario_dir) writes them).
RetimingPlan plan_retiming(const Sweep& sweep, const std::vector<SweepPoint>& points,
                           const std::string& scenario_dir);

}  // namespace sgdsim::analysis
