// Learning-layer speed: minibatch gradient throughput (samples/s) per model on Fashion-MNIST at batch 32 and
// 128, full test-set evaluation, and the exact optimum on the largest synthetic sizes (target < 1 s).
#include <benchmark/benchmark.h>

#include <numeric>

#include "algorithms/learning/model.hpp"
#include "algorithms/learning/optimum.hpp"
#include "algorithms/learning/problem.hpp"
#include "common/spec.hpp"

namespace {

using namespace sgdsim;
using namespace sgdsim::learning;

const Problem& fashion() {
  static const Problem problem = [] {
    json doc = json::parse(R"({"dataset": "fashion-mnist"})"), resolved;
    Spec spec = Spec::of_family(doc, "bench", "$.data", resolved, datasets());
    return load_problem(spec, 1, "");
  }();
  return problem;
}

std::unique_ptr<Model> model_for(const std::string& text, const Dataset& train) {
  json doc = json::parse(text), resolved;
  Spec spec = Spec::of_family(doc, "bench", "$.model", resolved, models());
  return make_model(spec, train);
}

void gradient(benchmark::State& state, const std::string& model_json) {
  const Problem& problem = fashion();
  const auto model = model_for(model_json, problem.train);
  std::vector<float> params(model->dimension()), grad(model->dimension());
  Rng init = Rng::stream(1, 0, Purpose::init);
  model->initialize(params, init);
  const auto batch_size = static_cast<std::size_t>(state.range(0));
  Rng rng = Rng::stream(1, 0, Purpose::batch);
  std::vector<std::size_t> batch(batch_size);
  for (auto _ : state) {
    for (auto& index : batch) index = rng.below(problem.train.samples());
    benchmark::DoNotOptimize(model->loss_and_gradient(params, problem.train, batch, grad));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch_size));
  state.counters["flops_per_sample"] = model->flops_per_sample();
  state.counters["GFLOP/s"] =
      benchmark::Counter(model->flops_per_sample() * static_cast<double>(batch_size) * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK_CAPTURE(gradient, logistic, std::string(R"({"kind": "logistic", "positive_class": 0})"))
    ->Arg(32)
    ->Arg(128);
BENCHMARK_CAPTURE(gradient, softmax, std::string(R"({"kind": "softmax"})"))->Arg(32)->Arg(128);
BENCHMARK_CAPTURE(gradient, mlp_128, std::string(R"({"kind": "mlp", "hidden": [128]})"))->Arg(32)->Arg(128);
BENCHMARK_CAPTURE(gradient, mlp_256_128, std::string(R"({"kind": "mlp", "hidden": [256, 128]})"))
    ->Arg(32)
    ->Arg(128);

// What an observer pays per evaluation of the 10000 test images.
void evaluate_test_set(benchmark::State& state, const std::string& model_json) {
  const Problem& problem = fashion();
  const auto model = model_for(model_json, problem.train);
  std::vector<float> params(model->dimension());
  Rng init = Rng::stream(1, 0, Purpose::init);
  model->initialize(params, init);
  for (auto _ : state) benchmark::DoNotOptimize(model->evaluate(params, problem.test));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(problem.test.samples()));
}
BENCHMARK_CAPTURE(evaluate_test_set, softmax, std::string(R"({"kind": "softmax"})"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(evaluate_test_set, mlp_128, std::string(R"({"kind": "mlp", "hidden": [128]})"))
    ->Unit(benchmark::kMillisecond);

// f* on the largest synthetic problem solve_optimum is meant for: 10^4 samples x 100 features.
void optimum(benchmark::State& state, const std::string& kind, const std::string& model_json) {
  json doc = json::parse(R"({"dataset": "synthetic", "kind": ")" + kind +
                         R"(", "samples": 10000, "features": 100, "test_samples": 0})"),
       resolved;
  Spec spec = Spec::of_family(doc, "bench", "$.data", resolved, datasets());
  const Problem problem = load_problem(spec, 1, "");
  const auto model = model_for(model_json, problem.train);
  for (auto _ : state) benchmark::DoNotOptimize(solve_optimum(*model, problem.train));
}
BENCHMARK_CAPTURE(optimum, logistic, std::string("logistic"),
                  std::string(R"({"kind": "logistic", "l2": 1e-4})"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(optimum, linear, std::string("linear"), std::string(R"({"kind": "linear", "l2": 1e-4})"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(optimum, softmax, std::string("logistic"),
                  std::string(R"({"kind": "softmax", "l2": 1e-4})"))
    ->Unit(benchmark::kMillisecond);

void load_fashion_mnist(benchmark::State& state) {
  for (auto _ : state) {
    json doc = json::parse(R"({"dataset": "fashion-mnist"})"), resolved;
    Spec spec = Spec::of_family(doc, "bench", "$.data", resolved, datasets());
    benchmark::DoNotOptimize(load_problem(spec, 1, ""));
  }
}
BENCHMARK(load_fashion_mnist)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace
