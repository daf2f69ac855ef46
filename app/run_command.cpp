// `sgdsim run S.json -o DIR`: one simulation, one process.
#include <unistd.h>

#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "app/commands.hpp"
#include "common/error.hpp"
#include "common/memory_limit.hpp"
#include "common/worker_pool.hpp"
#include "scenarios/wiring/scenario.hpp"

namespace sgdsim::app {
namespace {

// "A:B", "A:" or "N" -> the first and last step of the timeline.
std::pair<std::int64_t, std::int64_t> parse_step_window(const std::string& text) {
  const auto number = [&text](const std::string& part) {
    std::size_t used = 0;
    long long value = -1;
    try {
      value = std::stoll(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || value < 1)
      throw InputError("--timeline-steps " + text + ": expected A:B, A: or N with steps from 1 (e.g. 10:20)");
    return static_cast<std::int64_t>(value);
  };
  const auto colon = text.find(':');
  if (colon == std::string::npos) {
    const std::int64_t step = number(text);
    return {step, step};
  }
  const std::int64_t first = number(text.substr(0, colon));
  const std::string rest = text.substr(colon + 1);
  const std::int64_t last = rest.empty() ? std::numeric_limits<std::int64_t>::max() : number(rest);
  if (last < first) throw InputError("--timeline-steps " + text + ": the last step comes before the first");
  return {first, last};
}

}  // namespace

void add_run_command(CLI::App& root) {
  auto* cmd =
      root.add_subcommand("run", "Simulate one scenario; writes DIR/trace.csv, summary.json, resolved.json");
  struct Options {
    std::string scenario, output;
    std::vector<std::string> overrides;
    std::string memory_limit;
    bool force = false, quiet = false;
    bool timeline = false;
    bool record = false;
    std::string timeline_steps;
    std::size_t timeline_limit = 1'000'000;
    std::size_t threads = default_threads();
  };
  auto options = std::make_shared<Options>();
  cmd->add_option("scenario", options->scenario, "Scenario file (JSON, comments allowed)")->required();
  cmd->add_option("-o,--output", options->output, "Output directory (written atomically)")->required();
  cmd->add_option(
         "--set", options->overrides,
         "Override a value by dotted path, e.g. --set algorithm.steps=500 --set network.link.bandwidth=1Gbps")
      ->take_all();
  cmd->add_flag("--force", options->force, "Replace an existing output directory");
  cmd->add_option(
      "--memory-limit", options->memory_limit,
      "Refuse a scenario whose estimated memory exceeds this (bytes, or 8GB, 512MiB; 0: no check; "
      "default: $SGDSIM_MEMORY_LIMIT, else the machine's memory)");
  cmd->add_flag("-q,--quiet", options->quiet, "No progress line on stderr");
  cmd->add_flag("--timeline", options->timeline,
                "Also write DIR/timeline.json (Trace Event Format: open it in Perfetto or chrome://tracing): "
                "each node's work, receives, waits and sends, and each link's utilisation");
  cmd->add_flag(
      "--record", options->record,
      "Also write DIR/schedule.bin, the run's operations in timing-independent units, so that "
      "`sgdsim retime DIR` can re-time it under other network and compute settings without learning "
      "again (docs/schedule.md); refused for runs whose behaviour depends on time");
  cmd->add_option("--timeline-steps", options->timeline_steps,
                  "Only these steps in the timeline: A:B (steps A to B), A: (from A), or N (step N alone)");
  cmd->add_option("--timeline-limit", options->timeline_limit,
                  "At most this many spans in the timeline; it is cut there, and says so")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40))
      ->capture_default_str();
  cmd->add_option(
         "--threads", options->threads,
         "Threads computing the nodes' gradients (at least 1; default: the processors this process may "
         "run on). The results are the same for every count. Not the scenario's model.threads "
         "(libtorch's own threads within one gradient)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->callback([options] {
    if (!options->memory_limit.empty())
      set_memory_limit(parse_memory_limit(options->memory_limit, "--memory-limit"));
    const bool terminal = isatty(STDERR_FILENO);
    const bool progress = !options->quiet && terminal;
    std::optional<scenarios::TimelineRequest> timeline;
    if (options->timeline || !options->timeline_steps.empty()) {
      timeline.emplace();
      timeline->max_spans = options->timeline_limit;
      if (!options->timeline_steps.empty())
        std::tie(timeline->first_step, timeline->last_step) = parse_step_window(options->timeline_steps);
    }
    scenarios::run_to_directory(options->scenario, options->overrides, options->output, options->force,
                                progress, options->threads, timeline, options->record);
    // Progress lines are for terminals; elsewhere (a log, a pipe) one line says the run finished and where.
    if (!options->quiet && !terminal)
      std::fprintf(stderr, "sgdsim: run: wrote %s\n", options->output.c_str());
  });
}

}  // namespace sgdsim::app
