// libtorch models: forward + backward throughput (samples/s) at batch 32 and 128 through the Model interface
// (flat parameter vector in, flat gradient out), and the cost of that flat-vector boundary on its own.
// One intra-op thread, as in simulations by default. The overhead is flat_boundary / gradient at the same
// model: the boundary is paid once per gradient call whatever the batch size.
#include <benchmark/benchmark.h>

#include "algorithms/learning/fashion_mnist.hpp"
#include "algorithms/learning/torch/torch_model.hpp"

namespace {

using namespace sgdsim;
using namespace sgdsim::learning;

const Dataset& fashion_train() {
  static const Dataset data = load_fashion_mnist(default_fashion_mnist_dir).train;
  return data;
}

// CIFAR-10 is not installed here; its shape is what matters for speed, so random pixels stand in.
const Dataset& cifar_shaped() {
  static const Dataset data = [] {
    Dataset d;
    d.image = ImageShape{3, 32, 32};
    d.classes = 10;
    d.features.resize(4096, 3072);
    Rng rng(1);
    for (Eigen::Index i = 0; i < d.features.size(); ++i)
      d.features.data()[i] = static_cast<float>(rng.uniform());
    for (int i = 0; i < 4096; ++i) d.labels.push_back(static_cast<std::int32_t>(rng.below(10)));
    return d;
  }();
  return data;
}

std::unique_ptr<TorchModel> build(const std::string& name, const Dataset& data) {
  if (name == "lenet5") return make_lenet5(TorchOptions{}, data.image, data.classes);
  return make_resnet(std::stoi(name.substr(6)), TorchOptions{}, data.image, data.classes);
}

const Dataset& data_for(const std::string& set) {
  return set == "cifar" ? cifar_shaped() : fashion_train();
}

void gradient(benchmark::State& state, const std::string& name, const std::string& set) {
  const Dataset& data = data_for(set);
  const auto model = build(name, data);
  std::vector<float> params(model->dimension()), grad(model->dimension());
  Rng init = Rng::stream(1, 0, Purpose::init);
  model->initialize(params, init);
  const auto batch_size = static_cast<std::size_t>(state.range(0));
  Rng rng = Rng::stream(1, 0, Purpose::batch);
  std::vector<std::size_t> batch(batch_size);
  for (auto _ : state) {
    for (auto& index : batch) index = rng.below(data.samples());
    benchmark::DoNotOptimize(model->loss_and_gradient(params, data, batch, grad));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch_size));
  state.counters["params"] = static_cast<double>(model->dimension());
  state.counters["GFLOP/s"] =
      benchmark::Counter(model->flops_per_sample() * static_cast<double>(batch_size) * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}

// Copying the flat parameters in and the gradient out: what the boundary adds to every gradient call.
void flat_boundary(benchmark::State& state, const std::string& name, const std::string& set) {
  const Dataset& data = data_for(set);
  const auto model = build(name, data);
  std::vector<float> params(model->dimension()), grad(model->dimension());
  Rng init = Rng::stream(1, 0, Purpose::init);
  model->initialize(params, init);
  const std::vector<std::size_t> batch{0, 1};
  model->loss_and_gradient(params, data, batch, grad);  // so that gradient tensors exist
  for (auto _ : state) {
    model->load_parameters(params);
    model->store_gradient(grad);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() *
                          static_cast<std::int64_t>(2 * model->dimension() * sizeof(float)));
}

#define SGDSIM_TORCH_BENCH(name, set)                                                   \
  BENCHMARK_CAPTURE(gradient, name##_##set, std::string(#name), std::string(#set))      \
      ->Arg(32)                                                                         \
      ->Arg(128)                                                                        \
      ->Unit(benchmark::kMillisecond)                                                   \
      ->MinTime(2.0);                                                                   \
  BENCHMARK_CAPTURE(flat_boundary, name##_##set, std::string(#name), std::string(#set)) \
      ->Unit(benchmark::kMicrosecond)

SGDSIM_TORCH_BENCH(lenet5, fashion);
SGDSIM_TORCH_BENCH(resnet20, fashion);
SGDSIM_TORCH_BENCH(lenet5, cifar);
SGDSIM_TORCH_BENCH(resnet20, cifar);
SGDSIM_TORCH_BENCH(resnet32, cifar);
SGDSIM_TORCH_BENCH(resnet56, cifar);

}  // namespace
