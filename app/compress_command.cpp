// PLACEHOLDER: replaced by the real `sgdsim compress` command.
#include <stdexcept>

#include "app/commands.hpp"

namespace sgdsim::app {

void add_compress_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("compress", "(not yet available)");
  cmd->callback([] { throw std::runtime_error("compress: not implemented"); });
}

}  // namespace sgdsim::app
