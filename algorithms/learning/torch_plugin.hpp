#pragma once
// The libtorch models reach the program through a plugin (libsgdsim_torch_plugin.so) that is loaded the first
// time a scenario names one of them. Loading libtorch costs about a second, which every process linked
// against it would pay at start-up; the test suite and the sweeps start hundreds of processes that never
// train a network. This header is the contract between the program and the plugin; it has no libtorch
// headers.
#include <memory>
#include <string>

#include "algorithms/learning/dataset.hpp"
#include "algorithms/learning/model.hpp"

namespace sgdsim::learning {

// Everything the plugin needs to build one model; filled from the scenario's model object.
struct TorchRequest {
  std::string kind;             // a model kind with the capability libtorch
  int depth = 20;               // resnet
  bool imagenet = false;        // resnet: the ImageNet form (a 7x7 stem, four stages) instead of CIFAR's
  std::string path;             // torchscript: the module file (already resolved)
  double flops_per_sample = 0;  // torchscript: forward + backward of one sample; 0: counted
  int threads = 1;              // libtorch's intra-op threads
  double l2 = 1e-4;
  bool average_batch_norm = false;
  ImageShape input;
  int classes = 0;
};

// Bumped whenever TorchRequest or the entry point change, so a stale plugin is refused, not misread.
inline constexpr int torch_plugin_abi = 3;

// The plugin's entry point, `extern "C"` so it is found by name: builds the model, or returns a non-zero
// code with `error` set (2: the user's input is unusable, 1: anything else). No exception crosses it.
using TorchPluginEntry = int (*)(const TorchRequest& request, std::unique_ptr<Model>& model,
                                 std::string& error);

// True when this build has the plugin (CMake option SGDSIM_TORCH).
bool torch_built();

// Builds the model through the plugin. InputError when the build has no libtorch, the plugin cannot be
// loaded, or the request is unusable (the plugin's message); std::runtime_error for other failures.
std::unique_ptr<Model> make_torch_model(const TorchRequest& request);

}  // namespace sgdsim::learning
