// Bring-your-own model: a TorchScript module saved from Python, trained through the flat-vector boundary.
#include <torch/script.h>

#include <filesystem>

#include "algorithms/learning/torch/network.hpp"
#include "algorithms/learning/torch/network_kinds.hpp"
#include "common/error.hpp"

namespace sgdsim::learning {

namespace {

class ScriptNetwork : public TorchNetwork {
 public:
  ScriptNetwork(torch::jit::Module module, const std::string& path) : module_(std::move(module)) {
    for (const torch::Tensor& p : module_.parameters()) {
      if (p.scalar_type() != torch::kFloat32 || !p.is_contiguous()) {
        throw InputError(path + ": the module has a parameter of type " +
                         std::string(c10::toString(p.scalar_type())) +
                         "; sgdsim trains float32 parameters only");
      }
      p.requires_grad_(true);
      parameters.push_back(p);
      const float* values = p.data_ptr<float>();
      saved_.insert(saved_.end(), values, values + p.numel());
    }
    if (parameters.empty()) throw InputError(path + ": the module has no parameters to train");
    for (const torch::Tensor& b : module_.buffers()) {
      if (!b.is_floating_point()) continue;  // e.g. BatchNorm's batch counter
      if (b.scalar_type() != torch::kFloat32 || !b.is_contiguous()) {
        throw InputError(path + ": the module has a buffer of type " +
                         std::string(c10::toString(b.scalar_type())) +
                         "; sgdsim supports float32 buffers only");
      }
      state.push_back(b);
    }
    capture_initial_state();
    order_free = false;  // forward is the user's: it may use dropout
  }
  torch::Tensor forward(const torch::Tensor& x) override { return module_.forward({x}).toTensor(); }
  void train(bool on) override { module_.train(on); }
  // The values saved in the file: the user's own initialisation. `rng` is not used.
  void initialize(std::span<float> params, Rng&) const override {
    std::copy(saved_.begin(), saved_.end(), params.begin());
  }

 private:
  torch::jit::Module module_;
  std::vector<float> saved_;
};

}  // namespace

std::unique_ptr<TorchModel> load_torchscript(const std::string& path, const TorchOptions& options,
                                             const ImageShape& input, int classes, double flops_per_sample) {
  if (input.empty()) {
    throw InputError(path +
                     ": a TorchScript model needs image data (channels x height x width); this data set "
                     "has none");
  }
  if (!(flops_per_sample > 0)) {
    throw InputError(path +
                     ": flops_per_sample must be positive: sgdsim cannot count the operations of a "
                     "scripted module, give forward + backward flops of one sample");
  }
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) throw InputError(path + ": no such file");
  // The graph executor's profiling passes could specialise the graph after the first calls and change the
  // rounding between calls; plain interpretation keeps every call identical.
  torch::jit::setGraphExecutorOptimize(false);
  torch::jit::Module module;
  try {
    module = torch::jit::load(path, torch::kCPU);
  } catch (const c10::Error& e) {
    throw InputError(
        path + ": not a readable TorchScript module (save it with torch.jit.script(model).save(...)): " +
        e.what_without_backtrace());
  }
  auto network = std::make_unique<ScriptNetwork>(std::move(module), path);
  network->input = input;
  network->classes = classes;
  network->flops_per_sample = flops_per_sample;
  // Check the contract once on two zero images: forward must accept N x C x H x W and return N x classes.
  torch::Tensor output;
  try {
    torch::NoGradGuard no_grad;
    network->train(false);
    output = network->forward(torch::zeros({2, input.channels, input.height, input.width}));
  } catch (const std::exception& e) {
    std::string what = e.what();
    if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e))
      what = c10_error->what_without_backtrace();
    throw InputError(path + ": forward fails on a batch of " + input.text() + " images: " + what);
  }
  if (output.dim() != 2 || output.size(0) != 2 || output.size(1) != classes) {
    throw InputError(path + ": forward returns a tensor of shape " + c10::str(output.sizes()) +
                     " for 2 images, " + "expected [2, " + std::to_string(classes) +
                     "] (one logit per class; the data has " + std::to_string(classes) + " classes)");
  }
  if (output.scalar_type() != torch::kFloat32) {
    throw InputError(path + ": forward returns " + std::string(c10::toString(output.scalar_type())) +
                     " logits, expected float32");
  }
  return std::make_unique<TorchModel>(std::move(network), options);
}

namespace {

const bool torchscript_registered =
    add_torch_network("torchscript", [](const TorchRequest& r, const TorchOptions& o) {
      return load_torchscript(r.path, o, r.input, r.classes, r.flops_per_sample);
    });

}  // namespace

}  // namespace sgdsim::learning
