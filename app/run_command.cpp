// `sgdsim run S.json -o DIR`: one simulation, one process.
#include <unistd.h>

#include <string>
#include <vector>

#include "app/commands.hpp"
#include "common/memory_limit.hpp"
#include "common/worker_pool.hpp"
#include "scenarios/wiring/scenario.hpp"

namespace sgdsim::app {

void add_run_command(CLI::App& root) {
  auto* cmd =
      root.add_subcommand("run", "Simulate one scenario; writes DIR/trace.csv, summary.json, resolved.json");
  struct Options {
    std::string scenario, output;
    std::vector<std::string> overrides;
    std::string memory_limit;
    bool force = false, quiet = false;
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
  cmd->add_option(
         "--threads", options->threads,
         "Threads computing the nodes' gradients (at least 1; default: the processors this process may "
         "run on). The results are the same for every count. Not the scenario's model.threads "
         "(libtorch's own threads within one gradient)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  cmd->callback([options] {
    if (!options->memory_limit.empty())
      set_memory_limit(parse_memory_size(options->memory_limit, "--memory-limit"));
    const bool progress = !options->quiet && isatty(STDERR_FILENO);
    scenarios::run_to_directory(options->scenario, options->overrides, options->output, options->force,
                                progress, options->threads);
  });
}

}  // namespace sgdsim::app
