// PLACEHOLDER: replaced by the real `sgdsim sweep` command.
#include <stdexcept>

#include "app/commands.hpp"

namespace sgdsim::app {

void add_sweep_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("sweep", "(not yet available)");
  cmd->callback([] { throw std::runtime_error("sweep: not implemented"); });
}

}  // namespace sgdsim::app
