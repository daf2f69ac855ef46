#pragma once
// Deep networks through libtorch (PyTorch's C++ API) behind the flat-vector Model interface, so every
// protocol and compressor works with them. This header is free of libtorch headers on purpose: they take tens
// of seconds to compile, so only the files in this folder include them (library sgdsim_torch).
//
// The boundary: each call copies the flat parameter vector into the network's parameter tensors, runs
// forward and backward in libtorch, and copies the parameter gradients back into the flat gradient. The
// copies are linear in the parameter count and small against a convolutional network's gradient (see
// docs/learning.md for the measured share).
#include <cstddef>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "algorithms/learning/model.hpp"

namespace sgdsim::learning {

// What happens to BatchNorm's running statistics (see Model::state_dimension and docs/learning.md).
enum class BatchNormStats {
  local,     // each node keeps its own statistics; they are never communicated
  averaged,  // protocols average them with their neighbours like parameters (averages_state() is true)
};

struct TorchOptions {
  // libtorch's intra-op threads (at::set_num_threads, process-wide). Results are bit-for-bit reproducible
  // for a fixed count; a different count may change the rounding of reductions.
  int threads = 1;
  double l2 = 1e-4;  // (l2 / 2) ||theta||^2 over all parameters, as for the Eigen models
  BatchNormStats batch_norm = BatchNormStats::local;
};

class TorchNetwork;  // the libtorch side (torch_model.cpp)

class TorchModel final : public Model {
 public:
  TorchModel(std::unique_ptr<TorchNetwork> network, const TorchOptions& options);
  ~TorchModel() override;

  std::size_t dimension() const override { return dimension_; }
  // LeNet-5 and ResNet: He initialisation from `rng` (see docs); TorchScript: the values saved in the file.
  void initialize(std::span<float> params, Rng& rng) const override;
  // Training mode: BatchNorm normalises with the batch's statistics. The running statistics these calls
  // update, and evaluate() uses, are the model object's own ("pooled" over every caller): protocols that
  // hold per-node statistics use the *_with_state calls instead.
  double loss_and_gradient(std::span<const float> params, const Dataset& data,
                           std::span<const std::size_t> batch, std::span<float> gradient) const override;
  // Before any training step has updated them, BatchNorm's running statistics are the built values (means
  // 0, variances 1), which no data has: a deep ResNet's activations grow layer by layer under them. Until
  // then, evaluation normalises each batch of 256 with its own statistics, as training does.
  Evaluation evaluate(std::span<const float> params, const Dataset& data,
                      std::span<const std::size_t> subset = {}) const override;
  double flops_per_sample() const override { return flops_per_sample_; }
  std::vector<LayerCost> layer_costs() const override { return layer_costs_; }
  std::vector<std::size_t> tensor_layers() const override { return tensor_layers_; }
  std::vector<std::size_t> tensor_sizes() const override { return tensor_sizes_; }
  std::vector<Shape> tensor_shapes() const override { return tensor_shapes_; }

  // LeNet-5 and ResNet draw nothing at random; a TorchScript module might (dropout), so it is not.
  bool order_free() const override { return order_free_; }
  std::size_t state_dimension() const override { return state_dimension_; }
  std::vector<std::size_t> state_tensor_sizes() const override { return state_tensor_sizes_; }
  void initialize_state(std::span<float> state) const override;
  bool averages_state() const override { return options_.batch_norm == BatchNormStats::averaged; }
  double loss_and_gradient_with_state(std::span<const float> params, std::span<float> state,
                                      const Dataset& data, std::span<const std::size_t> batch,
                                      std::span<float> gradient) const override;
  Evaluation evaluate_with_state(std::span<const float> params, std::span<const float> state,
                                 const Dataset& data,
                                 std::span<const std::size_t> subset = {}) const override;

  const ImageShape& input() const { return input_; }
  int classes() const { return classes_; }

  // The two halves of the flat-vector boundary, public so that the benchmark can time them on their own:
  // copy `params` into the network's parameter tensors; copy the parameter gradients of the last backward
  // pass into `gradient`.
  void load_parameters(std::span<const float> params) const;
  void store_gradient(std::span<float> gradient) const;

 private:
  void check(std::size_t params, const Dataset& data) const;

  // One network whose tensors every call loads and overwrites: calls from several threads (the simulation's
  // worker pool) take turns. Recursive because the *_with_state calls wrap the plain ones.
  mutable std::recursive_mutex mutex_;
  std::unique_ptr<TorchNetwork> network_;
  TorchOptions options_;
  ImageShape input_;
  int classes_;
  std::size_t dimension_ = 0;
  std::size_t state_dimension_ = 0;
  std::vector<std::size_t> tensor_sizes_;
  std::vector<Shape> tensor_shapes_;  // out × the rest for weights and kernels, 1 × n for vectors
  std::vector<std::size_t> state_tensor_sizes_;
  double flops_per_sample_ = 0;
  std::vector<LayerCost> layer_costs_;
  std::vector<std::size_t> tensor_layers_;
  bool order_free_ = true;
  // A module that may draw random numbers (dropout) draws them from libtorch's generator, which libtorch
  // seeds from the clock: each training call seeds it from these (the scenario's seed, through
  // initialize(), and the calls so far, which keep the simulation's order since order_free_ is false).
  mutable std::uint64_t generator_seed_ = 0;
  mutable std::uint64_t training_calls_ = 0;
};

// LeNet-5 (LeCun et al. 1998) in its common modern form: conv 6@5x5 (padding 2) - ReLU - max-pool 2 -
// conv 16@5x5 - ReLU - max-pool 2 - fc 120 - ReLU - fc 84 - ReLU - fc classes. Any input of at least 12x12
// pixels (28x28 gives the classic 16x5x5 feature map, 32x32 gives 16x6x6). InputError for smaller images or
// fewer than 2 classes.
std::unique_ptr<TorchModel> make_lenet5(const TorchOptions& options, const ImageShape& input, int classes);

// CIFAR-style ResNet (He et al. 2016, section 4.2): conv 16@3x3 - BN - ReLU, three stages of n basic blocks
// (two 3x3 convs with BN) with 16, 32, 64 channels, stride 2 at the start of stages 2 and 3, identity
// shortcuts with zero-padded channels where the shape changes (option A: no extra parameters), global
// average pooling, fc classes. depth = 6n + 2: 20, 32, 56 (0.27M, 0.46M, 0.85M parameters); InputError for
// other depths.
std::unique_ptr<TorchModel> make_resnet(int depth, const TorchOptions& options, const ImageShape& input,
                                        int classes);

// The ImageNet ResNet (He et al. 2016, section 3.4 and table 1): conv 64@7x7 stride 2 - BN - ReLU - max-pool
// 3x3 stride 2, four stages of basic blocks (depth 18, 34) or bottleneck blocks (50, 101, 152; the stride in
// the 3x3 convolution, "v1.5") with 64, 128, 256, 512 channels (times 4 out of a bottleneck), projection
// shortcuts where the shape changes, global average pooling, fc classes. ResNet-50 on 3x224x224 images with
// 1000 classes has 25.6M parameters. InputError for other depths or images smaller than 32x32.
std::unique_ptr<TorchModel> make_imagenet_resnet(int depth, const TorchOptions& options,
                                                 const ImageShape& input, int classes);

// A user's TorchScript module (torch.jit.script(model).save(path)) whose forward maps a float batch
// N x C x H x W to logits N x classes. Its parameters, in the module's order, form the flat vector; its
// floating-point buffers (BatchNorm running statistics) form the state; initialize() returns the saved
// values. `flops_per_sample` (forward + backward of one sample) is counted from the operations its forward
// runs on one image when 0 (convolutions, linear layers, matmuls, BatchNorm, ReLU, additions, pooling, with
// the conventions of the built-in networks, docs/learning.md), else taken as given. InputError naming `path`
// when the file is missing or not a TorchScript module, when it has no parameters, when forward fails on an
// input of the given shape, when its output is not N x classes, or when nothing countable was found.
std::unique_ptr<TorchModel> load_torchscript(const std::string& path, const TorchOptions& options,
                                             const ImageShape& input, int classes, double flops_per_sample);

}  // namespace sgdsim::learning
