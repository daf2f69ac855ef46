// PLACEHOLDER: replaced by the real `sgdsim run` command.
#include <stdexcept>

#include "app/commands.hpp"

namespace sgdsim::app {

void add_run_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("run", "(not yet available)");
  cmd->callback([] { throw std::runtime_error("run: not implemented"); });
}

}  // namespace sgdsim::app
