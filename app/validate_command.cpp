// `sgdsim validate S.json`: checks a scenario completely (data included) and prints it with defaults filled.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "common/memory_limit.hpp"
#include "scenarios/wiring/scenario.hpp"

namespace sgdsim::app {

void add_validate_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("validate", "Check a scenario and print it with every default filled in");
  struct Options {
    std::string scenario;
    std::vector<std::string> overrides;
    std::string memory_limit;
    bool quiet = false;
  };
  auto options = std::make_shared<Options>();
  cmd->add_option("scenario", options->scenario, "Scenario file (JSON, comments allowed)")->required();
  cmd->add_option("--set", options->overrides, "Override a value by dotted path (as for run)")->take_all();
  cmd->add_option(
      "--memory-limit", options->memory_limit,
      "Refuse a scenario whose estimated memory exceeds this (bytes, or 8GB, 512MiB; 0: no check; "
      "default: $SGDSIM_MEMORY_LIMIT, else the machine's memory)");
  cmd->add_flag("-q,--quiet", options->quiet, "Print nothing on success");
  cmd->callback([options] {
    if (!options->memory_limit.empty())
      set_memory_limit(parse_memory_size(options->memory_limit, "--memory-limit"));
    const nlohmann::json document = scenarios::load_document(options->scenario, options->overrides);
    std::string base = std::filesystem::path(options->scenario).parent_path().string();
    scenarios::Scenario scenario(document, options->scenario, base.empty() ? "." : base);
    if (!options->quiet) std::printf("%s\n", scenario.resolved().dump(2).c_str());
  });
}

}  // namespace sgdsim::app
