#pragma once
// Running the points of a sweep as child processes (`<runner> run DIR/points/<id>.json -o DIR/runs/<id>`), at
// most `jobs` at a time. One simulation per process is SimGrid's rule, and a crash or a bad point then costs
// one run, not the sweep: a failed point is recorded in runs/<id>.failed.json and the others go on. Children
// die with the sweep (PR_SET_PDEATHSIG), so a sweep killed with kill -9 leaves no orphan writing into DIR,
// and a rerun starts clean: it skips points whose run folder holds summary.json and removes what an
// interrupted attempt left.
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "analysis/sweep_layout.hpp"
#include "analysis/sweep_point.hpp"
#include "analysis/sweep_retiming.hpp"
#include "analysis/sweep_spec.hpp"

namespace sgdsim::analysis {

struct RunnerOptions {
  // Program (and leading arguments) that understands `run S.json -o DIR --threads N`.
  std::vector<std::string> runner;
  std::size_t jobs = 1;
  std::size_t threads = 1;       // each run's --threads
  std::FILE* progress = stderr;  // a line per finished point
  bool terminal = false;         // also redraw a status line (when stderr is a terminal)
  // Which points record their schedule and which are re-timed from another (null: every point live). A
  // re-timed point starts once its source is complete; when the source failed, or is complete without a
  // schedule (run by an earlier invocation with --live), the point runs live instead.
  const RetimingPlan* retiming = nullptr;
};

struct RunTally {
  std::size_t skipped = 0;  // already complete
  std::size_t succeeded = 0;
  std::size_t failed = 0;
  std::size_t invalid = 0;    // failed with exit code 2: the runner rejected the point's scenario
  std::string first_error;    // last stderr line of the first failure
  std::string first_invalid;  // last stderr line of the first failure with exit code 2
};

// Creates DIR's folders, writes the point scenarios and removes leftovers of interrupted attempts of
// `points`. Throws InputError when a completed run was made from a different scenario than the sweep now
// gives (the base changed): mixing the two in one index would be wrong.
void prepare_points(const Sweep& sweep, const SweepLayout& layout, const std::vector<SweepPoint>& points);

// Runs the incomplete points among `points`; call prepare_points first.
RunTally run_points(const SweepLayout& layout, const std::vector<SweepPoint>& points,
                    const RunnerOptions& options);

// True when the point's run folder is complete: summary.json (with its "final" object) and resolved.json are
// readable JSON. A run cut short or garbled is incomplete, hence retried.
bool run_complete(const SweepLayout& layout, const std::string& id);

// Throws InputError, naming the file and the first differing JSON path, when a completed run among `points`
// was made from another scenario than the sweep now gives. The check reads the run's own resolved.json, so it
// also holds when points/ is absent (runs/ copied together from shards): every value the point scenario sets
// must be in resolved.json unchanged. (A key deleted from the base, whose default now applies, is not seen.)
void check_runs_current(const Sweep& sweep, const SweepLayout& layout, const std::vector<SweepPoint>& points);

}  // namespace sgdsim::analysis
