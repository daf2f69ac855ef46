// TorchModel: the flat-vector boundary between the Model interface and a libtorch network.
#include "algorithms/learning/torch/torch_model.hpp"

#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>

#include "algorithms/learning/torch/network.hpp"
#include "common/error.hpp"
#include "common/rng.hpp"

namespace sgdsim::learning {

namespace {

// Evaluation runs in chunks so memory stays bounded on the 10000-image test sets.
constexpr std::size_t eval_chunk = 256;

double squared_norm(std::span<const float> params) {
  double sum = 0;
  for (float p : params) sum += static_cast<double>(p) * static_cast<double>(p);
  return sum;
}

// The samples `rows` of `data` as a float tensor N x C x H x W. Rows are contiguous CHW images already, so
// this is one copy per sample.
torch::Tensor gather_images(const Dataset& data, std::span<const std::size_t> rows, const ImageShape& shape) {
  torch::Tensor x = torch::empty(
      {static_cast<std::int64_t>(rows.size()), shape.channels, shape.height, shape.width}, torch::kFloat32);
  float* out = x.data_ptr<float>();
  const std::size_t size = shape.size();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] >= data.samples()) throw std::out_of_range("model: sample index beyond the data set");
    data.copy_row(rows[i], out + i * size);
  }
  return x;
}

torch::Tensor gather_labels(const Dataset& data, std::span<const std::size_t> rows) {
  torch::Tensor y = torch::empty({static_cast<std::int64_t>(rows.size())}, torch::kInt64);
  std::int64_t* out = y.data_ptr<std::int64_t>();
  for (std::size_t i = 0; i < rows.size(); ++i) out[i] = data.labels[rows[i]];
  return y;
}

// Copies between a flat span and a list of contiguous float tensors, in order.
void flat_to_tensors(std::span<const float> flat, const std::vector<torch::Tensor>& tensors) {
  std::size_t offset = 0;
  for (const torch::Tensor& t : tensors) {
    const auto n = static_cast<std::size_t>(t.numel());
    std::memcpy(t.data_ptr<float>(), flat.data() + offset, n * sizeof(float));
    offset += n;
  }
}

void tensors_to_flat(const std::vector<torch::Tensor>& tensors, std::span<float> flat) {
  std::size_t offset = 0;
  for (const torch::Tensor& t : tensors) {
    const auto n = static_cast<std::size_t>(t.numel());
    std::memcpy(flat.data() + offset, t.data_ptr<float>(), n * sizeof(float));
    offset += n;
  }
}

// Puts `state` into the network's state tensors for one call and restores the model's own (pooled) state
// afterwards, so per-node statistics never leak into each other or into the pooled set.
class StateSwap {
 public:
  StateSwap(TorchNetwork& network, std::span<const float> state, std::size_t dimension)
      : network_(network), saved_(dimension) {
    tensors_to_flat(network_.state, saved_);
    flat_to_tensors(state, network_.state);
  }
  ~StateSwap() { flat_to_tensors(saved_, network_.state); }
  StateSwap(const StateSwap&) = delete;
  StateSwap& operator=(const StateSwap&) = delete;

 private:
  TorchNetwork& network_;
  std::vector<float> saved_;
};

// Evaluation with each batch's own BatchNorm statistics (TorchModel::evaluate): the running statistics those
// forward passes update are put back afterwards.
class BatchStatistics {
 public:
  explicit BatchStatistics(TorchNetwork& network, std::size_t dimension)
      : network_(network), saved_(dimension) {
    tensors_to_flat(network_.state, saved_);
    network_.batch_statistics(true);
  }
  ~BatchStatistics() {
    network_.batch_statistics(false);
    flat_to_tensors(saved_, network_.state);
  }
  BatchStatistics(const BatchStatistics&) = delete;
  BatchStatistics& operator=(const BatchStatistics&) = delete;

 private:
  TorchNetwork& network_;
  std::vector<float> saved_;
};

// libtorch's intra-op count is per calling thread (OpenMP): a worker of the simulation's pool must compute
// with the model's count, or a sum could be split differently than in the simulation's own thread.
void use_threads(int threads) {
  if (at::get_num_threads() != threads) at::set_num_threads(threads);
}

}  // namespace

TorchModel::TorchModel(std::unique_ptr<TorchNetwork> network, const TorchOptions& options)
    : network_(std::move(network)), options_(options) {
  if (options_.threads < 1) throw InputError("torch model: threads must be at least 1");
  if (options_.l2 < 0) throw InputError("torch model: l2 must not be negative");
  // Process-wide (one simulation per process); libtorch gives the worker pool's threads the same count.
  at::set_num_threads(options_.threads);
  input_ = network_->input;
  classes_ = network_->classes;
  flops_per_sample_ = network_->flops_per_sample;
  layer_costs_ = network_->layers;
  tensor_layers_ = network_->tensor_layers;
  order_free_ = network_->order_free;
  for (const torch::Tensor& p : network_->parameters) {
    tensor_sizes_.push_back(static_cast<std::size_t>(p.numel()));
    const std::size_t rows = p.dim() >= 2 && p.size(0) > 0 ? static_cast<std::size_t>(p.size(0)) : 1;
    tensor_shapes_.push_back({rows, tensor_sizes_.back() / rows});
    dimension_ += tensor_sizes_.back();
  }
  // The flop counter names each layer's tensors in the order the module registers them.
  if (!tensor_layers_.empty() && tensor_layers_.size() != tensor_sizes_.size())
    throw std::logic_error("torch model: " + std::to_string(tensor_layers_.size()) +
                           " tensors counted in layers, the module has " +
                           std::to_string(tensor_sizes_.size()));
  for (const torch::Tensor& s : network_->state) {
    state_tensor_sizes_.push_back(static_cast<std::size_t>(s.numel()));
    state_dimension_ += state_tensor_sizes_.back();
  }
}

TorchModel::~TorchModel() = default;

void TorchModel::initialize(std::span<float> params, Rng& rng) const {
  if (params.size() != dimension_) throw std::invalid_argument("torch model: params of the wrong size");
  if (!order_free_) {
    Rng copy = rng;  // the caller's stream stays as it was
    generator_seed_ = copy();
  }
  network_->initialize(params, rng);
}

void TorchModel::initialize_state(std::span<float> state) const {
  if (state.size() != state_dimension_) throw std::invalid_argument("torch model: state of the wrong size");
  std::copy(network_->initial_state.begin(), network_->initial_state.end(), state.begin());
}

void TorchModel::load_parameters(std::span<const float> params) const {
  flat_to_tensors(params, network_->parameters);
}

void TorchModel::store_gradient(std::span<float> gradient) const {
  std::size_t offset = 0;
  for (const torch::Tensor& p : network_->parameters) {
    const auto n = static_cast<std::size_t>(p.numel());
    const torch::Tensor& g = p.grad();
    // A parameter the loss does not depend on gets no gradient tensor: its gradient is zero.
    if (g.defined()) {
      const torch::Tensor c = g.is_contiguous() ? g : g.contiguous();
      std::memcpy(gradient.data() + offset, c.data_ptr<float>(), n * sizeof(float));
    } else {
      std::fill(gradient.begin() + static_cast<std::ptrdiff_t>(offset),
                gradient.begin() + static_cast<std::ptrdiff_t>(offset + n), 0.0f);
    }
    offset += n;
  }
}

void TorchModel::check(std::size_t params, const Dataset& data) const {
  if (params != dimension_) {
    throw std::invalid_argument("torch model: params has " + std::to_string(params) +
                                " values, the model has " + std::to_string(dimension_) + " parameters");
  }
  if (data.dimension() != input_.size()) {
    throw InputError("torch model: the data has " + std::to_string(data.dimension()) +
                     " features per sample, the model takes " + input_.text() + " images (" +
                     std::to_string(input_.size()) + " values)");
  }
}

double TorchModel::loss_and_gradient(std::span<const float> params, const Dataset& data,
                                     std::span<const std::size_t> batch, std::span<float> gradient) const {
  std::lock_guard lock(mutex_);
  use_threads(options_.threads);
  check(params.size(), data);
  if (gradient.size() != dimension_) throw std::invalid_argument("torch model: gradient of the wrong size");
  if (batch.empty()) throw std::invalid_argument("model: empty minibatch");
  load_parameters(params);
  for (const torch::Tensor& p : network_->parameters) p.mutable_grad() = torch::Tensor();
  network_->train(true);
  if (!order_free_) torch::manual_seed(mix64(generator_seed_ ^ mix64(++training_calls_)));
  const torch::Tensor x = gather_images(data, batch, input_);
  const torch::Tensor y = gather_labels(data, batch);
  const torch::Tensor loss = torch::nn::functional::cross_entropy(network_->forward(x), y);
  loss.backward();
  store_gradient(gradient);
  const auto l2 = static_cast<float>(options_.l2);
  if (l2 != 0) {
    for (std::size_t k = 0; k < gradient.size(); ++k) gradient[k] += l2 * params[k];
  }
  return loss.item<double>() + 0.5 * options_.l2 * squared_norm(params);
}

Evaluation TorchModel::evaluate(std::span<const float> params, const Dataset& data,
                                std::span<const std::size_t> subset) const {
  std::lock_guard lock(mutex_);
  use_threads(options_.threads);
  check(params.size(), data);
  Evaluation result;
  const std::size_t n = subset.empty() ? data.samples() : subset.size();
  if (n == 0) {
    result.loss = result.accuracy = std::numeric_limits<double>::quiet_NaN();
    return result;
  }
  load_parameters(params);
  network_->train(false);
  torch::NoGradGuard no_grad;
  std::optional<BatchStatistics> batch_statistics;
  if (network_->initial_state_built && state_dimension_ > 0) {
    std::vector<float> current(state_dimension_);
    tensors_to_flat(network_->state, current);
    if (current == network_->initial_state) batch_statistics.emplace(*network_, state_dimension_);
  }
  double loss = 0;
  std::int64_t correct = 0;
  std::vector<std::size_t> rows;
  for (std::size_t start = 0; start < n; start += eval_chunk) {
    const std::size_t count = std::min(eval_chunk, n - start);
    rows.resize(count);
    for (std::size_t i = 0; i < count; ++i) rows[i] = subset.empty() ? start + i : subset[start + i];
    const torch::Tensor logits = network_->forward(gather_images(data, rows, input_));
    const torch::Tensor y = gather_labels(data, rows);
    loss += torch::nn::functional::cross_entropy(
                logits, y, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                .item<double>();
    correct += logits.argmax(1).eq(y).sum().item<std::int64_t>();
  }
  result.loss = loss / static_cast<double>(n) + 0.5 * options_.l2 * squared_norm(params);
  result.accuracy = static_cast<double>(correct) / static_cast<double>(n);
  return result;
}

double TorchModel::loss_and_gradient_with_state(std::span<const float> params, std::span<float> state,
                                                const Dataset& data, std::span<const std::size_t> batch,
                                                std::span<float> gradient) const {
  std::lock_guard lock(mutex_);
  use_threads(options_.threads);
  if (state.size() != state_dimension_) throw std::invalid_argument("torch model: state of the wrong size");
  StateSwap swap(*network_, state, state_dimension_);
  const double loss = loss_and_gradient(params, data, batch, gradient);
  tensors_to_flat(network_->state, state);
  return loss;
}

Evaluation TorchModel::evaluate_with_state(std::span<const float> params, std::span<const float> state,
                                           const Dataset& data, std::span<const std::size_t> subset) const {
  std::lock_guard lock(mutex_);
  use_threads(options_.threads);
  if (state.size() != state_dimension_) throw std::invalid_argument("torch model: state of the wrong size");
  StateSwap swap(*network_, state, state_dimension_);
  return evaluate(params, data, subset);
}

}  // namespace sgdsim::learning
