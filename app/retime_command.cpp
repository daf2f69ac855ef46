// `sgdsim retime RUN_DIR -o OUT --set KEY=VALUE ...`: a recorded run under other timing settings.
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "common/error.hpp"
#include "scenarios/wiring/retime.hpp"

namespace sgdsim::app {

void add_retime_command(CLI::App& root) {
  auto* cmd = root.add_subcommand(
      "retime",
      "Re-time a recorded run (run --record) under other timing settings, without learning again; writes "
      "OUT/trace.csv, summary.json, resolved.json, links.csv exactly as `run` would with those settings");
  struct Options {
    std::string run, output;
    std::vector<std::string> overrides;
    bool force = false, quiet = false, describe = false;
  };
  auto options = std::make_shared<Options>();
  cmd->add_option("run", options->run, "A run folder with schedule.bin (run --record)")->required();
  cmd->add_option("-o,--output", options->output, "Output directory (written atomically)");
  cmd->add_flag("--describe", options->describe,
                "Print the schedule's nodes, trace rows, operations and size (bytes per operation) instead");
  cmd->add_option("--set", options->overrides,
                  "Change a timing-only key by dotted path (marked *Timing only.* in docs/scenario.md), e.g. "
                  "--set network.link.bandwidth=1Gbps, or the run's name; any other key is refused")
      ->take_all();
  cmd->add_flag("--force", options->force, "Replace an existing output directory");
  cmd->add_flag("-q,--quiet", options->quiet, "Print nothing on success");
  cmd->callback([options] {
    if (options->describe) {
      std::printf("%s\n", scenarios::describe_schedule(options->run).c_str());
      return;
    }
    if (options->output.empty()) throw InputError("retime: -o,--output OUT is required (unless --describe)");
    scenarios::retime_to_directory(options->run, options->overrides, options->output, options->force);
    if (!options->quiet && !isatty(STDERR_FILENO))
      std::fprintf(stderr, "sgdsim: retime: wrote %s\n", options->output.c_str());
  });
}

}  // namespace sgdsim::app
