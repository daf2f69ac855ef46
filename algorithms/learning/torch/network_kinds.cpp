// The table of libtorch networks by kind (network_kinds.hpp).
#include "algorithms/learning/torch/network_kinds.hpp"

#include <map>
#include <stdexcept>

namespace sgdsim::learning {

namespace {

// A function-local static: registrations run from other files' static initialisers, in any order.
std::map<std::string, TorchBuild>& table() {
  static std::map<std::string, TorchBuild> networks;
  return networks;
}

}  // namespace

bool add_torch_network(const std::string& kind, TorchBuild build) {
  if (!table().emplace(kind, build).second) {
    throw std::logic_error("the libtorch network " + kind + " is registered twice");
  }
  return true;
}

TorchBuild find_torch_network(const std::string& kind) {
  const auto found = table().find(kind);
  return found == table().end() ? nullptr : found->second;
}

std::vector<std::string> torch_network_kinds() {
  std::vector<std::string> kinds;
  for (const auto& [kind, build] : table()) kinds.push_back(kind);
  return kinds;
}

}  // namespace sgdsim::learning
