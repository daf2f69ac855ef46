#pragma once
// The libtorch networks by model kind. Each network registers how it is built in its own .cpp file, and the
// plugin's entry point builds whatever kind the request names: adding a network edits no list. The program
// side of the same kind (its keys and help) is a model kind with the capability `libtorch`
// (algorithms/learning/torch_kinds.cpp); a test checks that the two sides name the same kinds.
#include <memory>
#include <string>
#include <vector>

#include "algorithms/learning/torch/torch_model.hpp"
#include "algorithms/learning/torch_plugin.hpp"

namespace sgdsim::learning {

// Builds the kind's model from the request (its kind-specific fields) and the options every network shares;
// InputError when the request does not fit the network (too small images, a depth it does not have).
using TorchBuild = std::unique_ptr<TorchModel> (*)(const TorchRequest& request, const TorchOptions& options);

// Registers `kind`, from a static initialiser: `const bool registered = add_torch_network("lenet5", build);`.
// std::logic_error if the kind is registered twice.
bool add_torch_network(const std::string& kind, TorchBuild build);

// The kind's builder, or nullptr when no network has registered it.
TorchBuild find_torch_network(const std::string& kind);

// Every registered kind, sorted.
std::vector<std::string> torch_network_kinds();

}  // namespace sgdsim::learning
