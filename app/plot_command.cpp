// PLACEHOLDER: replaced by the real `sgdsim plot` command.
#include <stdexcept>

#include "app/commands.hpp"

namespace sgdsim::app {

void add_plot_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("plot", "(not yet available)");
  cmd->callback([] { throw std::runtime_error("plot: not implemented"); });
}

}  // namespace sgdsim::app
