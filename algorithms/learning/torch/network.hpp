#pragma once
// The libtorch side of TorchModel: a network is an ordered list of parameter tensors, an ordered list of
// state tensors (floating-point buffers) and a forward function. Included only by this folder's .cpp files.
#include <torch/torch.h>

#include <span>
#include <vector>

#include "algorithms/learning/torch/torch_model.hpp"

namespace sgdsim::learning {

class TorchNetwork {
 public:
  virtual ~TorchNetwork() = default;
  virtual torch::Tensor forward(const torch::Tensor& input) = 0;
  virtual void train(bool on) = 0;
  // In evaluation mode, BatchNorm layers normalise with each batch's own statistics (on) or with their
  // running statistics (off, the default); nothing else changes (dropout stays off). Networks whose
  // initial_state came from data (a TorchScript file) need not implement it.
  virtual void batch_statistics(bool) {}
  // Writes initial parameter values into `params` (flat order), drawing from `rng` where the network
  // initialises randomly.
  virtual void initialize(std::span<float> params, Rng& rng) const = 0;

  // Filled by the concrete networks. Every tensor is contiguous float32 and requires grad (parameters);
  // the adapter copies into and out of their storage.
  std::vector<torch::Tensor> parameters;
  std::vector<torch::Tensor> state;
  std::vector<float> initial_state;  // flat, taken when the network is built
  // initial_state is what the constructors put there (BatchNorm: means 0, variances 1), not statistics of
  // any data: evaluate() then uses batch statistics until training has changed the state.
  bool initial_state_built = false;
  ImageShape input;
  int classes = 0;
  double flops_per_sample = 0;
  std::vector<LayerCost> layers;           // forward order; empty when unknown (a TorchScript module)
  std::vector<std::size_t> tensor_layers;  // each parameter's index in `layers`; empty when `layers` is
  // false when forward may draw from libtorch's global generator (a TorchScript module's dropout): calls
  // must then keep the simulation's order (Model::order_free).
  bool order_free = true;

 protected:
  // Snapshot of the state tensors as built (BatchNorm: means 0, variances 1; TorchScript: saved values).
  void capture_initial_state() {
    initial_state.clear();
    for (const torch::Tensor& t : state) {
      const float* p = t.data_ptr<float>();
      initial_state.insert(initial_state.end(), p, p + t.numel());
    }
  }
};

}  // namespace sgdsim::learning
