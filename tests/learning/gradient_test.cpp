// Finite-difference checks of every model's gradient, and consistency between the float and double paths.
#include <catch2/catch.hpp>

#include <cmath>

#include "algorithms/learning/model_base.hpp"
#include "helpers.hpp"

using namespace sgdsim;
using namespace sgdsim::learning;
using namespace sgdsim::learning::testing;

namespace {

const std::vector<std::string> model_specs = {
    R"({"kind": "logistic", "l2": 0.01, "positive_class": 2})",
    R"({"kind": "linear", "l2": 0.01})",
    R"({"kind": "softmax", "l2": 0.01})",
    R"({"kind": "mlp", "l2": 0.01, "hidden": [4, 3]})",
};

std::unique_ptr<Model> build(const std::string& text, const Dataset& data) {
  SpecHolder holder(text, "$.model", models());
  return make_model(holder.spec, data);
}

std::vector<double> random_params(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<double> params(n);
  for (double& p : params) p = 0.7 * rng.normal();
  return params;
}

}  // namespace

TEST_CASE("every model's gradient matches central finite differences in double precision") {
  const Dataset data = random_dataset(9, 5, 3, 11);
  const std::vector<std::size_t> batch{0, 2, 3, 5, 8, 2};
  for (const std::string& text : model_specs) {
    INFO(text);
    const auto model = build(text, data);
    const auto& base = dynamic_cast<const ModelBase&>(*model);
    std::vector<double> params = random_params(model->dimension(), 5);
    std::vector<double> gradient(model->dimension()), scratch(model->dimension());
    base.loss_and_gradient(std::span<const double>(params), data, batch, gradient);
    const double h = 1e-6;
    double largest = 0;
    for (std::size_t k = 0; k < params.size(); ++k) {
      const double saved = params[k];
      params[k] = saved + h;
      const double up = base.loss_and_gradient(std::span<const double>(params), data, batch, scratch);
      params[k] = saved - h;
      const double down = base.loss_and_gradient(std::span<const double>(params), data, batch, scratch);
      params[k] = saved;
      const double numeric = (up - down) / (2 * h);
      INFO("parameter " << k);
      CHECK(gradient[k] == Approx(numeric).margin(1e-7).epsilon(1e-6));
      largest = std::max(largest, std::abs(gradient[k]));
    }
    CHECK(largest > 1e-3);  // the check above compared something non-trivial
  }
}

TEST_CASE("single-precision training path agrees with the double-precision definition") {
  const Dataset data = random_dataset(40, 6, 4, 3);
  std::vector<std::size_t> batch(40);
  for (std::size_t i = 0; i < batch.size(); ++i) batch[i] = (7 * i) % 40;
  for (const std::string& text : model_specs) {
    INFO(text);
    const auto model = build(text, data);
    const auto& base = dynamic_cast<const ModelBase&>(*model);
    const std::vector<double> params = random_params(model->dimension(), 8);
    const std::vector<float> params_f(params.begin(), params.end());
    std::vector<double> gradient(model->dimension());
    std::vector<float> gradient_f(model->dimension());
    const double loss = base.loss_and_gradient(std::span<const double>(params), data, batch, gradient);
    const double loss_f = model->loss_and_gradient(params_f, data, batch, gradient_f);
    CHECK(loss_f == Approx(loss).epsilon(1e-5));
    for (std::size_t k = 0; k < gradient.size(); ++k) {
      INFO("parameter " << k);
      CHECK(gradient_f[k] == Approx(gradient[k]).margin(1e-5).epsilon(1e-4));
    }
  }
}

TEST_CASE("evaluate reports the full-set loss of loss_and_gradient and a sensible accuracy") {
  const Dataset data = random_dataset(1100, 3, 3, 21);  // more than one evaluation chunk
  std::vector<std::size_t> all(data.samples());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  for (const std::string& text : model_specs) {
    INFO(text);
    const auto model = build(text, data);
    const std::vector<double> params = random_params(model->dimension(), 2);
    const std::vector<float> params_f(params.begin(), params.end());
    std::vector<float> gradient(model->dimension());
    const double loss = model->loss_and_gradient(params_f, data, all, gradient);
    const Evaluation full = model->evaluate(params_f, data);
    CHECK(full.loss == Approx(loss).epsilon(1e-5));
    const std::vector<std::size_t> subset{4, 9, 100, 1099};
    const Evaluation part = model->evaluate(params_f, data, subset);
    CHECK(part.loss == Approx(model->loss_and_gradient(params_f, data, subset, gradient)).epsilon(1e-5));
    if (text.find("linear") != std::string::npos) {
      CHECK(std::isnan(full.accuracy));
    } else {
      CHECK(full.accuracy >= 0.0);
      CHECK(full.accuracy <= 1.0);
    }
  }
}

TEST_CASE("accuracy counts correct predictions") {
  // Two samples, 2 features, softmax with W = identity: predicts the larger feature.
  Dataset data;
  data.features.resize(3, 2);
  data.features << 1, 0, 0, 1, 2, 1;
  data.labels = {0, 1, 1};
  data.classes = 2;
  const auto model = build(R"({"kind": "softmax", "l2": 0})", data);
  const std::vector<float> params{1, 0, 0, 1, 0, 0};
  const Evaluation e = model->evaluate(params, data);
  CHECK(e.accuracy == Approx(2.0 / 3.0));
  // Cross-entropy by hand: log(1 + e^-1) for the two right, log(1 + e^1) for the wrong one.
  CHECK(e.loss == Approx((2 * std::log1p(std::exp(-1.0)) + std::log1p(std::exp(1.0))) / 3));
}

TEST_CASE("flop counts grow with the model as forward + backward passes should") {
  Dataset data = random_dataset(10, 784, 10, 1);
  const auto softmax = build(R"({"kind": "softmax"})", data);
  // Forward and backward each cost about one multiply-add per weight.
  CHECK(softmax->flops_per_sample() > 4.0 * 7840);
  CHECK(softmax->flops_per_sample() < 4.1 * 7850);
  const auto mlp = build(R"({"kind": "mlp", "hidden": [128, 64]})", data);
  const double weights = 784.0 * 128 + 128 * 64 + 64 * 10;
  // The first layer needs no input gradient (4 flops/weight), the others do (6 flops/weight).
  CHECK(mlp->flops_per_sample() > 4.0 * weights + 2.0 * (128 * 64 + 64 * 10));
  CHECK(mlp->flops_per_sample() < 4.0 * weights + 2.0 * (128 * 64 + 64 * 10) + 2000);
  const auto logistic = build(R"({"kind": "logistic", "positive_class": 3})", data);
  CHECK(logistic->flops_per_sample() == Approx(4.0 * 784).epsilon(0.01));
}

TEST_CASE("MLP initialisation is deterministic, He-scaled, with zero biases") {
  const Dataset data = random_dataset(5, 200, 3, 1);
  const auto model = build(R"({"kind": "mlp", "hidden": [50]})", data);
  std::vector<float> a(model->dimension()), b(model->dimension()), c(model->dimension());
  Rng r1 = Rng::stream(9, 0, Purpose::init), r2 = Rng::stream(9, 0, Purpose::init),
      r3 = Rng::stream(9, 1, Purpose::init);
  model->initialize(a, r1);
  model->initialize(b, r2);
  model->initialize(c, r3);
  CHECK(a == b);
  CHECK(a != c);
  double sum_squares = 0;
  for (std::size_t k = 0; k < 200 * 50; ++k) sum_squares += static_cast<double>(a[k]) * a[k];
  CHECK(sum_squares / (200 * 50) == Approx(2.0 / 200).epsilon(0.05));
  for (std::size_t k = 200 * 50; k < 200 * 50 + 50; ++k) CHECK(a[k] == 0.0f);
  // Convex models start at zero.
  const auto softmax = build(R"({"kind": "softmax"})", data);
  std::vector<float> s(softmax->dimension(), 1.0f);
  softmax->initialize(s, r1);
  CHECK(std::all_of(s.begin(), s.end(), [](float v) { return v == 0.0f; }));
}
