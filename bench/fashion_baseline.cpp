// Baseline evidence: plain single-node minibatch SGD on Fashion-MNIST, the reference point for the
// decentralised runs. A plain program (not a Google Benchmark); it trains one model and prints test accuracy
// as it goes.
//
//   bench_fashion_baseline [--model JSON] [--lr RATE] [--batch B] [--steps T] [--eval-every E] [--seed S]
//
// The learning rate may be any "lr" value of a scenario, e.g. '{"schedule": "step", "value": 0.1, ...}'.
// Batches are drawn with replacement from the training set from Rng::stream(seed, 0, Purpose::batch), as the
// protocols' local steps do.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "algorithms/learning/learning_rate.hpp"
#include "algorithms/learning/model.hpp"
#include "algorithms/learning/problem.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"

using namespace sgdsim;
using namespace sgdsim::learning;

int main(int argc, char** argv) {
  std::string model_json = R"({"kind": "softmax", "l2": 1e-4})";
  std::string lr_json = "0.1";
  long batch_size = 32, steps = 20000, eval_every = 5000;
  std::uint64_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--model")
      model_json = value;
    else if (key == "--lr")
      lr_json = value;
    else if (key == "--batch")
      batch_size = std::stol(value);
    else if (key == "--steps")
      steps = std::stol(value);
    else if (key == "--eval-every")
      eval_every = std::stol(value);
    else if (key == "--seed")
      seed = std::stoull(value);
    else {
      std::fprintf(stderr, "unknown option %s\n", key.c_str());
      return 2;
    }
  }
  try {
    json data_doc = json::parse(R"({"dataset": "fashion-mnist"})"), resolved;
    Spec data = Spec::of_family(data_doc, "baseline", "$.data", resolved["data"], learning::datasets());
    const Problem problem = load_problem(data, seed, "");
    json model_doc = json::parse(model_json);
    Spec model_spec =
        Spec::of_family(model_doc, "baseline", "$.model", resolved["model"], learning::models());
    const auto model = make_model(model_spec, problem.train);
    json lr_doc = json::parse(lr_json);
    Spec lr_spec =
        Spec::of_family(lr_doc, "baseline", "$.lr", resolved["algorithm"]["lr"], learning::learning_rates());
    const auto lr = make_learning_rate(lr_spec);

    std::vector<float> x(model->dimension()), gradient(model->dimension());
    Rng init = Rng::stream(seed, 0, Purpose::init);
    model->initialize(x, init);
    Rng batches = Rng::stream(seed, 0, Purpose::batch);
    std::vector<std::size_t> batch(static_cast<std::size_t>(batch_size));
    std::printf("# %s\n# model %s, lr %s, batch %ld, steps %ld, seed %llu\n", problem.description.c_str(),
                resolved["model"].dump().c_str(), resolved["algorithm"]["lr"].dump().c_str(), batch_size,
                steps, static_cast<unsigned long long>(seed));
    std::printf("%8s %8s %12s %12s %10s\n", "step", "epochs", "train_loss", "test_loss", "test_acc");
    const auto start = std::chrono::steady_clock::now();
    const auto report = [&](long step) {
      const Evaluation train = model->evaluate(x, problem.train);
      const Evaluation test = model->evaluate(x, problem.test);
      std::printf("%8ld %8.2f %12.5f %12.5f %10.4f\n", step,
                  static_cast<double>(step * batch_size) / static_cast<double>(problem.train.samples()),
                  train.loss, test.loss, test.accuracy);
      std::fflush(stdout);
    };
    for (long t = 0; t < steps; ++t) {
      if (t % eval_every == 0) report(t);
      for (auto& index : batch) index = batches.below(problem.train.samples());
      model->loss_and_gradient(x, problem.train, batch, gradient);
      const auto eta = static_cast<float>(lr->at(t));
      for (std::size_t k = 0; k < x.size(); ++k) x[k] -= eta * gradient[k];
    }
    report(steps);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("# wall %.1f s\n", seconds);
  } catch (const InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return exit_input_error;
  }
  return 0;
}
