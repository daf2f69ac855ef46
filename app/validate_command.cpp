// PLACEHOLDER: replaced by the real `sgdsim validate` command.
#include <stdexcept>

#include "app/commands.hpp"

namespace sgdsim::app {

void add_validate_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("validate", "(not yet available)");
  cmd->callback([] { throw std::runtime_error("validate: not implemented"); });
}

}  // namespace sgdsim::app
