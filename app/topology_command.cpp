// PLACEHOLDER: replaced by the real `sgdsim topology` command.
#include <stdexcept>

#include "app/commands.hpp"

namespace sgdsim::app {

void add_topology_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("topology", "(not yet available)");
  cmd->callback([] { throw std::runtime_error("topology: not implemented"); });
}

}  // namespace sgdsim::app
