// `sgdsim sweep SWEEP.json -o DIR [-j N] [--shard i/N] [--index-only] [--dry-run]`: runs every point of a
// sweep as a child `sgdsim run`, resumable and shardable, and rebuilds DIR/index.csv. See
// analysis/sweep_*.hpp and docs/workflow.md.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include "analysis/index.hpp"
#include "analysis/sweep_layout.hpp"
#include "analysis/sweep_point.hpp"
#include "analysis/sweep_retiming.hpp"
#include "analysis/sweep_runner.hpp"
#include "analysis/sweep_shard.hpp"
#include "analysis/sweep_spec.hpp"
#include "analysis/sweep_validation.hpp"
#include "app/commands.hpp"
#include "common/error.hpp"
#include "common/worker_pool.hpp"

namespace sgdsim::app {
namespace {

struct SweepArguments {
  std::string sweep_file;
  std::string output;
  std::size_t jobs = 1;
  std::size_t threads = 0;  // per run; 0: the machine's threads shared among the jobs
  std::string shard = "1/1";
  bool index_only = false;
  bool dry_run = false;
  bool live = false;
};

// The program that runs one point: this very binary, unless SGDSIM_RUNNER names another (a wrapper script, or
// a stand-in used by tests).
const char* custom_runner() {
  const char* custom = std::getenv("SGDSIM_RUNNER");
  return custom && *custom ? custom : nullptr;
}

std::vector<std::string> runner() {
  if (const char* custom = custom_runner()) return {custom};
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error("cannot locate the sgdsim binary (/proc/self/exe)");
  return {self.string()};
}

void sweep(const SweepArguments& args) {
  using namespace analysis;
  const Sweep sweep = load_sweep(args.sweep_file);
  const Shard shard = parse_shard(args.shard);
  const std::vector<SweepPoint> points = expand(sweep);
  const std::vector<SweepPoint> mine = select(points, shard);
  const SweepLayout layout{args.output};

  // Building every point's scenario up front catches overrides that cannot apply, whichever shard has them.
  for (const auto& point : points) point_scenario(sweep, point, layout.points().string());

  // Every point this invocation would run is validated before any runs (and by --dry-run): a bad point is
  // reported with all the others at once, with nothing written. Completed points are checked against their
  // own resolved.json below instead. A runner named by SGDSIM_RUNNER may understand other scenarios (a
  // test's stand-in) and validates its own points.
  if (!custom_runner()) {
    std::vector<const SweepPoint*> to_check;
    for (const auto& point : mine)
      if (args.dry_run || (!args.index_only && !run_complete(layout, point.id))) to_check.push_back(&point);
    if (!to_check.empty()) {
      const std::vector<InvalidPoint> invalid = validate_points(sweep, to_check);
      if (!invalid.empty()) {
        std::size_t settings = 0;  // points differing in more than their seed
        std::set<std::string> seen;
        for (const SweepPoint* point : to_check) settings += seen.insert(point->overrides.dump()).second;
        throw InputError(invalid_points_message(invalid, settings));
      }
    }
  }

  if (args.dry_run) {
    for (const auto& point : mine)
      std::printf("%s\t%s\t%lld\n", point.id.c_str(), point.label.c_str(),
                  static_cast<long long>(point.seed));
    return;
  }
  std::error_code error;
  if (std::filesystem::exists(layout.dir, error) && !std::filesystem::is_directory(layout.dir, error)) {
    throw InputError(layout.dir.string() + ": the output exists and is not a folder");
  }

  // Runs made from another scenario must not enter the index, whether or not points/ is there.
  check_runs_current(sweep, layout, points);

  RunTally tally;
  if (!args.index_only) {
    prepare_points(sweep, layout, mine);
    RunnerOptions options;
    options.runner = runner();
    options.jobs = args.jobs;
    options.threads =
        args.threads > 0 ? args.threads : std::max<std::size_t>(1, default_threads() / args.jobs);
    options.terminal = isatty(STDERR_FILENO);
    // Learn once, time many: points that differ only in timing-only keys are re-timed from one live run
    // (a test's stand-in runner knows only `run`).
    analysis::RetimingPlan plan;
    if (!args.live && !custom_runner()) {
      plan = analysis::plan_retiming(sweep, mine, layout.points().string());
      options.retiming = &plan;
    }
    std::size_t complete = 0;
    for (const auto& point : mine) complete += run_complete(layout, point.id);
    std::fprintf(
        stderr, "sweep: %s: %zu points%s, %zu already complete, running %zu with -j %zu\n",
        sweep.name.c_str(), mine.size(),
        shard.count > 1 ? (" in shard " + shard.text() + " of " + std::to_string(points.size())).c_str() : "",
        complete, mine.size() - complete, args.jobs);
    tally = run_points(layout, mine, options);
  }
  const IndexTally index = write_index(sweep, points, layout);
  std::fprintf(stderr, "sweep: %s: %zu ok, %zu diverged, %zu failed, %zu pending of %zu points\n",
               layout.index().c_str(), index.ok, index.diverged, index.failed, index.pending, points.size());
  if (tally.failed > 0 && tally.invalid == tally.succeeded + tally.failed) {
    // Not one point was accepted: the sweep itself is wrong (a misspelt path, a bad value for all points).
    throw InputError("every point run was rejected as invalid input, e.g.: " + tally.first_error);
  }
  if (!index.unreadable.empty()) {
    std::string files;
    for (const auto& line : index.unreadable) files += "\n  " + line;
    throw std::runtime_error(std::to_string(index.unreadable.size()) +
                             " run(s) have an unreadable summary.json (status \"unreadable\" in the index):" +
                             files + "\nrerun the sweep without --index-only to retry them");
  }
  if (tally.failed > 0) {
    // Only failures a rerun can fix (a crash, a kill, a machine out of memory) get that advice; a point
    // refused as bad input (exit 2) fails again until its scenario changes.
    std::string advice;
    const std::size_t retriable = tally.failed - tally.invalid;
    if (tally.invalid > 0)
      advice += "; " + std::to_string(tally.invalid) +
                " refused as bad input (exit 2), which a rerun repeats: fix the sweep or its base, e.g.: " +
                tally.first_invalid;
    if (retriable > 0)
      advice += "; " + std::to_string(retriable) + " failed otherwise: rerun the same command to retry them";
    throw std::runtime_error(std::to_string(tally.failed) + " of " + std::to_string(mine.size()) +
                             " points failed; their records are " + layout.runs().string() +
                             "/<id>.failed.json" + advice);
  }
}

}  // namespace

void add_sweep_command(CLI::App& root) {
  auto args = std::make_shared<SweepArguments>();
  auto* cmd = root.add_subcommand("sweep",
                                  "Run every point of a sweep (base scenario x grid x seeds) as a child "
                                  "process into DIR/runs/<id>/, skipping "
                                  "points already complete, and rebuild DIR/index.csv");
  cmd->add_option("sweep", args->sweep_file, "Sweep file (JSON with comments)")->required();
  cmd->add_option("-o,--output", args->output, "Output folder DIR")->required();
  cmd->add_option("-j,--jobs", args->jobs, "Points run in parallel")->check(CLI::Range(1, 1024));
  cmd->add_option(
         "--threads", args->threads,
         "Threads of each run (`sgdsim run --threads`; default: the machine's threads divided by -j, "
         "at least 1)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--shard", args->shard,
                  "Run only shard i of N (1-based: 1/3, 2/3, 3/3); shards are disjoint and cover the sweep");
  cmd->add_flag(
      "--index-only", args->index_only,
      "Run nothing; rebuild DIR/index.csv from DIR/runs/ (e.g. after copying the shards' runs together)");
  cmd->add_flag(
      "--live", args->live,
      "Run every point live; by default points that differ only in timing-only keys are re-timed "
      "from one live run of their group (`sgdsim retime`; docs/workflow.md, \"Learn once, time many\")");
  cmd->add_flag("--dry-run", args->dry_run,
                "Validate and print this shard's points (id, label, seed); write nothing");
  cmd->callback([args] { sweep(*args); });
}

}  // namespace sgdsim::app
