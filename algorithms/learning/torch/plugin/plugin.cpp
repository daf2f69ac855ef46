// The entry points of libsgdsim_torch_plugin.so (see algorithms/learning/torch_plugin.hpp). Exceptions stop
// here: the program gets a code and a message.
#include <exception>

#include "algorithms/learning/torch/network_kinds.hpp"
#include "algorithms/learning/torch_plugin.hpp"
#include "common/error.hpp"

using namespace sgdsim::learning;

extern "C" __attribute__((visibility("default"))) int sgdsim_torch_plugin_abi() {
  return torch_plugin_abi;
}

extern "C" __attribute__((visibility("default"))) int sgdsim_torch_plugin_make(const TorchRequest& request,
                                                                               std::unique_ptr<Model>& model,
                                                                               std::string& error) {
  try {
    TorchOptions options;
    options.threads = request.threads;
    options.l2 = request.l2;
    options.batch_norm = request.average_batch_norm ? BatchNormStats::averaged : BatchNormStats::local;
    const TorchBuild build = find_torch_network(request.kind);
    if (!build) {
      error = "unknown libtorch model kind " + request.kind + " (this plugin has:";
      for (const std::string& kind : torch_network_kinds()) error += " " + kind;
      error += ")";
      return 1;
    }
    model = build(request, options);
    return 0;
  } catch (const sgdsim::InputError& e) {
    error = e.what();
    return 2;
  } catch (const std::exception& e) {
    error = e.what();
    return 1;
  }
}
