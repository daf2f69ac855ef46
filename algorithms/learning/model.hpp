#pragma once
// A model over one flat parameter vector. Protocols see only this interface: loss, gradient and a flop count
// per sample that the simulator charges as compute time.
#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "algorithms/learning/dataset.hpp"
#include "common/keys.hpp"
#include "common/rng.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::learning {

// One layer's share of a minibatch gradient, per sample and per minibatch, in the terms a device's roofline
// prices it by (docs/compute.md, "Accelerator profiles"): flops, and values (not bytes: the device decides
// how wide a value is) moved between the layer and memory.
struct LayerCost {
  double flops = 0;          // forward + backward flops of one sample
  double values = 0;         // activations and their gradients read and written for one sample
  double weight_values = 0;  // per minibatch: weights read (forward and backward), their gradient written
  double kernels = 0;        // kernel launches per minibatch (forward + backward)
  bool operator==(const LayerCost&) const = default;
};

// One pass of a layer: its forward pass is one of its kernels and that share of its flops and values, its
// backward pass the rest. Exact for convolutions and linear layers as the counts of docs/learning.md make
// them (forward, weight gradient, input gradient: one kernel each, and the same flops and values; the first
// layer has no input gradient); for layers without weights (BatchNorm, ReLU, pooling) an even split of two
// kernels.
enum class Pass { forward, backward };
inline LayerCost pass_of(const LayerCost& layer, Pass pass) {
  const double forward = layer.kernels > 1 ? 1.0 / layer.kernels : 1.0;
  const double share = pass == Pass::forward ? forward : 1.0 - forward;
  return {share * layer.flops, share * layer.values, share * layer.weight_values, share * layer.kernels};
}

struct Evaluation {
  double loss = 0;      // mean loss including the l2 term
  double accuracy = 0;  // fraction correct (classification); NaN when it does not apply
};

class Model {
 public:
  virtual ~Model() = default;
  virtual std::size_t dimension() const = 0;
  virtual void initialize(std::span<float> params, Rng& rng) const = 0;
  // Mean loss over `batch` (sample indices into `data`) plus the l2 term; writes its gradient into
  // `gradient`.
  virtual double loss_and_gradient(std::span<const float> params, const Dataset& data,
                                   std::span<const std::size_t> batch, std::span<float> gradient) const = 0;
  // Mean loss (with l2) and accuracy over the given samples (all of them when `subset` is empty). Computes in
  // double where it matters; no side effects.
  virtual Evaluation evaluate(std::span<const float> params, const Dataset& data,
                              std::span<const std::size_t> subset = {}) const = 0;
  // Floating-point operations for forward + backward of one sample.
  virtual double flops_per_sample() const = 0;
  // Its layers' costs in forward order, when the model knows them (the libtorch networks); empty otherwise,
  // and a device's roofline then takes the model as one layer of flops_per_sample.
  virtual std::vector<LayerCost> layer_costs() const { return {}; }
  // For each parameter tensor (tensor_sizes() order), the index in layer_costs() of the layer it belongs to;
  // empty when the layers are unknown. Data-parallel's overlap charges each gradient bucket the backward
  // pass of the layers up to its tensors' (docs/protocols.md).
  virtual std::vector<std::size_t> tensor_layers() const { return {}; }
  // Floats per sample it keeps while computing a minibatch's gradient beyond the input features and the
  // outputs (hidden activations and their gradients), for the memory estimate (footprint.hpp).
  virtual double hidden_floats_per_sample() const { return 0; }

  // The sizes of the parameter tensors (weight matrices, biases, convolution kernels, ...) in their order in
  // the flat vector; they add up to dimension(). Per-tensor bucketing uses them so that no bucket spans two
  // tensors. The default is one tensor: models that do not say otherwise are bucketed as one vector.
  virtual std::vector<std::size_t> tensor_sizes() const { return {dimension()}; }
  // The same tensors as rows × cols matrices stored row by row (weight matrices out × in, convolution
  // kernels out_channels × the rest; vectors 1 × size), for compressors that factor matrices (PowerSGD).
  // The default views each tensor of tensor_sizes() as a 1 × size vector.
  struct Shape {
    std::size_t rows = 1, cols = 0;
  };
  virtual std::vector<Shape> tensor_shapes() const {
    std::vector<Shape> shapes;
    for (std::size_t size : tensor_sizes()) shapes.push_back({1, size});
    return shapes;
  }
  static std::vector<std::size_t> sizes_of(const std::vector<Shape>& shapes) {
    std::vector<std::size_t> sizes;
    for (const Shape& s : shapes) sizes.push_back(s.rows * s.cols);
    return sizes;
  }

  // true when calls (on different state vectors) may run on several threads at once, in any order, with
  // the same results as one after the other: nothing shared changes and nothing is drawn at random. The
  // simulation computes the gradients of such models on its worker pool (common/worker_pool.hpp).
  virtual bool order_free() const { return true; }

  // Non-trainable state that training updates besides the parameters: BatchNorm's running means and
  // variances. It is not part of the parameter vector (no gradient flows to it), so a protocol that wants
  // per-node statistics holds one state vector per node and passes it to the *_with_state calls below.
  // Models without such state keep the defaults: dimension 0, and the calls ignore the (empty) state.
  virtual std::size_t state_dimension() const { return 0; }
  virtual std::vector<std::size_t> state_tensor_sizes() const { return {}; }
  // The state a fresh model starts with (BatchNorm: means 0, variances 1).
  virtual void initialize_state(std::span<float> state) const { (void)state; }
  // true: the state should be averaged with the neighbours like the parameters; false: each node keeps its
  // own. The model's option; protocols read it.
  virtual bool averages_state() const { return false; }
  // loss_and_gradient that also updates `state` (state_dimension() values) in place.
  virtual double loss_and_gradient_with_state(std::span<const float> params, std::span<float> state,
                                              const Dataset& data, std::span<const std::size_t> batch,
                                              std::span<float> gradient) const {
    (void)state;
    return loss_and_gradient(params, data, batch, gradient);
  }
  // evaluate with the given state (BatchNorm normalises with these running statistics).
  virtual Evaluation evaluate_with_state(std::span<const float> params, std::span<const float> state,
                                         const Dataset& data,
                                         std::span<const std::size_t> subset = {}) const {
    (void)state;
    return evaluate(params, data, subset);
  }
};

// The model kinds. Each registers itself from its own file with its keys and capabilities (convex,
// needs_class_labels: the family declares them with their help). `base_dir` is the
// scenario file's folder, against which relative file paths (a TorchScript module) resolve.
using ModelFactory =
    std::function<std::unique_ptr<Model>(Spec&, const Dataset& train, const std::string& base_dir)>;
keys::Registry<ModelFactory>& models();

// Builds a model for the given data from a Spec of the model family ({"kind": "softmax", "l2": 1e-4}),
// finishing it.
std::unique_ptr<Model> make_model(Spec& spec, const Dataset& train, const std::string& base_dir = {});

}  // namespace sgdsim::learning
