// The libtorch models behind the flat-vector interface: gradients against finite differences, bit-for-bit
// determinism, the parameter and state layout, BatchNorm statistics, and errors for bad input.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "../learning/helpers.hpp"
#include "algorithms/learning/mlp_model.hpp"
#include "algorithms/learning/torch/torch_model.hpp"
#include "common/error.hpp"

using namespace sgdsim;
using namespace sgdsim::learning;

namespace {

Dataset images(std::size_t n, const ImageShape& shape, int classes, std::uint64_t seed) {
  Dataset d = testing::random_dataset(n, shape.size(), classes, seed);
  d.image = shape;
  return d;
}

std::vector<std::size_t> all(std::size_t n) {
  std::vector<std::size_t> rows(n);
  for (std::size_t i = 0; i < n; ++i) rows[i] = i;
  return rows;
}

std::vector<float> initial(const Model& model, std::uint64_t seed = 1) {
  std::vector<float> params(model.dimension());
  Rng rng = Rng::stream(seed, 0, Purpose::init);
  model.initialize(params, rng);
  return params;
}

double loss_at(const Model& model, std::vector<float> params, std::span<const float> direction, double step,
               const Dataset& data, std::span<const std::size_t> batch) {
  for (std::size_t k = 0; k < params.size(); ++k) params[k] += static_cast<float>(step * direction[k]);
  std::vector<float> unused(params.size());
  return model.loss_and_gradient(params, data, batch, unused);
}

// Central differences along the gradient itself (checks its size) and along single coordinates: the
// largest-gradient coordinate of every parameter tensor (checks that each tensor's gradient lands at its
// own place in the flat vector).
void check_gradient(const Model& model, const Dataset& data, double eps) {
  const std::vector<std::size_t> batch = all(data.samples());
  const std::vector<float> params = initial(model);
  std::vector<float> gradient(model.dimension());
  model.loss_and_gradient(params, data, batch, gradient);
  double norm = 0;
  for (float g : gradient) norm += static_cast<double>(g) * g;
  norm = std::sqrt(norm);
  REQUIRE(norm > 1e-3);
  std::vector<float> direction(gradient.size());
  for (std::size_t k = 0; k < gradient.size(); ++k) direction[k] = static_cast<float>(gradient[k] / norm);
  const double along = (loss_at(model, params, direction, eps, data, batch) -
                        loss_at(model, params, direction, -eps, data, batch)) /
                       (2 * eps);
  CHECK(along == Approx(norm).epsilon(0.02));
  std::size_t start = 0;
  for (std::size_t size : model.tensor_sizes()) {
    std::size_t best = start;
    for (std::size_t k = start; k < start + size; ++k)
      if (std::abs(gradient[k]) > std::abs(gradient[best])) best = k;
    std::vector<float> unit(gradient.size(), 0.0f);
    unit[best] = 1.0f;
    const double numeric =
        (loss_at(model, params, unit, eps, data, batch) - loss_at(model, params, unit, -eps, data, batch)) /
        (2 * eps);
    INFO("tensor at offset " << start << ", coordinate " << best);
    CHECK(numeric == Approx(gradient[best]).epsilon(0.05).margin(2e-3));
    start += size;
  }
  CHECK(start == model.dimension());
}

}  // namespace

TEST_CASE("LeNet-5 and ResNet gradients match finite differences") {
  TorchOptions options;
  options.l2 = 1e-3;
  SECTION("lenet5") {
    const auto model = make_lenet5(options, ImageShape{1, 12, 12}, 3);
    check_gradient(*model, images(5, ImageShape{1, 12, 12}, 3, 1), 1e-3);
  }
  SECTION("resnet, depth 8, with BatchNorm in training mode") {
    const auto model = make_resnet(8, options, ImageShape{2, 6, 6}, 3);
    check_gradient(*model, images(6, ImageShape{2, 6, 6}, 3, 2), 1e-3);
  }
}

TEST_CASE("torch gradients are bit-for-bit reproducible for a fixed thread count") {
  for (int threads : {1, 2}) {
    TorchOptions options;
    options.threads = threads;
    const ImageShape shape{3, 10, 10};
    const Dataset data = images(8, shape, 4, 3);
    const std::vector<std::size_t> batch{3, 1, 4, 1, 5};
    std::vector<std::vector<float>> gradients;
    std::vector<double> losses;
    for (int run = 0; run < 2; ++run) {
      const auto model = make_resnet(8, options, shape, 4);  // a fresh model each run
      const std::vector<float> params = initial(*model, 5);
      std::vector<float> gradient(model->dimension());
      for (int call = 0; call < 2; ++call) {  // and a repeated call on the same model
        losses.push_back(model->loss_and_gradient(params, data, batch, gradient));
        gradients.push_back(gradient);
      }
    }
    INFO("threads " << threads);
    for (std::size_t k = 1; k < gradients.size(); ++k) {
      CHECK(losses[k] == losses[0]);
      CHECK(std::memcmp(gradients[k].data(), gradients[0].data(), gradients[0].size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("ResNet-20 and LeNet-5 have the published sizes, tensor boundaries and flop counts") {
  const auto resnet = make_resnet(20, TorchOptions{}, ImageShape{3, 32, 32}, 10);
  CHECK(resnet->dimension() == 269722);  // He et al. 2016: 0.27M
  const std::vector<std::size_t> sizes = resnet->tensor_sizes();
  CHECK(sizes.front() == 3 * 16 * 9);  // first convolution
  CHECK(sizes[1] == 16);               // its BatchNorm scale
  CHECK(sizes.back() == 10);           // the output bias
  std::size_t total = 0;
  for (std::size_t s : sizes) total += s;
  CHECK(total == resnet->dimension());
  // 19 BatchNorm layers: 16 + 6 * 16 + 6 * 32 + 6 * 64 channels, a mean and a variance each.
  CHECK(resnet->state_dimension() == 2 * 688);
  // Forward is 40.6M multiply-adds; backward doubles it (weights and inputs) except for the first layer.
  CHECK(resnet->flops_per_sample() > 3 * 2 * 40.0e6);
  CHECK(resnet->flops_per_sample() < 3 * 2 * 42.0e6);
  CHECK(resnet->flops_per_sample() == 247500615.0);  // the count of docs/learning.md
  const auto lenet = make_lenet5(TorchOptions{}, ImageShape{1, 28, 28}, 10);
  CHECK(lenet->dimension() == 61706);  // 156 + 2416 + 48120 + 10164 + 850
  CHECK(lenet->tensor_sizes() == std::vector<std::size_t>{150, 6, 2400, 16, 48000, 120, 10080, 84, 840, 10});
  // As matrices: convolution kernels out_channels × (in_channels · kernel area), linear weights out × in.
  const auto shapes = lenet->tensor_shapes();
  REQUIRE(shapes.size() == 10);
  CHECK((shapes[0].rows == 6 && shapes[0].cols == 25));
  CHECK((shapes[1].rows == 1 && shapes[1].cols == 6));
  CHECK((shapes[2].rows == 16 && shapes[2].cols == 150));
  CHECK((shapes[4].rows == 120 && shapes[4].cols == 400));
  CHECK((shapes[9].rows == 1 && shapes[9].cols == 10));
  CHECK(lenet->state_dimension() == 0);
  // 416 520 multiply-adds forward; the first convolution needs no input gradient (2 * 117 600 less).
  CHECK(lenet->flops_per_sample() > 3 * 2 * 416520.0 - 2 * 117600.0);
  CHECK(lenet->flops_per_sample() < 3 * 2 * 416520.0);
  // The Eigen MLP: W1 (3 × 4), b1, W2 (2 × 3), b2; no state.
  const MlpModel mlp(4, {3}, 2, 0.0);
  CHECK(mlp.tensor_sizes() == std::vector<std::size_t>{12, 3, 6, 2});
  CHECK(mlp.state_dimension() == 0);
}

TEST_CASE("BatchNorm running statistics: per-node state or the model's pooled set") {
  const ImageShape shape{1, 6, 6};
  const Dataset data = images(12, shape, 3, 4);
  for (BatchNormStats mode : {BatchNormStats::local, BatchNormStats::averaged}) {
    TorchOptions options;
    options.batch_norm = mode;
    const auto model = make_resnet(8, options, shape, 3);
    CHECK(model->averages_state() == (mode == BatchNormStats::averaged));
    const std::vector<float> params = initial(*model);
    std::vector<float> fresh(model->state_dimension());
    model->initialize_state(fresh);
    // The first BatchNorm layer (16 channels): means 0, then variances 1.
    CHECK(fresh[0] == 0.0f);
    CHECK(fresh[15] == 0.0f);
    CHECK(fresh[16] == 1.0f);
    CHECK(fresh[31] == 1.0f);
    const Evaluation pooled_before = model->evaluate(params, data);
    // Two nodes train on different batches with their own statistics.
    std::vector<float> node_a = fresh, node_b = fresh;
    std::vector<float> g_state(model->dimension()), g_plain(model->dimension());
    const std::vector<std::size_t> batch_a{0, 1, 2, 3}, batch_b{4, 5, 6, 7};
    const double loss_state = model->loss_and_gradient_with_state(params, node_a, data, batch_a, g_state);
    model->loss_and_gradient_with_state(params, node_b, data, batch_b, g_plain);
    CHECK(node_a != fresh);
    CHECK(node_a != node_b);
    // Training normalises with the batch's statistics, so the gradient does not depend on the state.
    const double loss_plain = model->loss_and_gradient(params, data, batch_a, g_plain);
    CHECK(loss_plain == loss_state);
    CHECK(g_plain == g_state);
    // The per-node calls left the pooled set alone; the plain call above updated it.
    const Evaluation pooled_after = model->evaluate(params, data);
    CHECK(pooled_after.loss != pooled_before.loss);
    const Evaluation with_fresh = model->evaluate_with_state(params, fresh, data);
    CHECK(with_fresh.loss == pooled_before.loss);
    const Evaluation with_a = model->evaluate_with_state(params, node_a, data);
    CHECK(with_a.loss != with_fresh.loss);
    CHECK(model->evaluate(params, data).loss == pooled_after.loss);
    // Evaluation is a pure function of (params, state): repeated calls agree.
    CHECK(model->evaluate_with_state(params, node_a, data).loss == with_a.loss);
  }
}

TEST_CASE("LeNet-5 learns a small separable problem with plain SGD") {
  const ImageShape shape{1, 12, 12};
  Dataset data = images(32, shape, 2, 6);
  // Class 1 images are bright in the top half: easy for a convolution.
  for (std::size_t i = 0; i < data.samples(); ++i) {
    for (int p = 0; p < 72; ++p)
      data.features(static_cast<Eigen::Index>(i), p) += data.labels[i] == 1 ? 1.0f : 0.0f;
  }
  const auto model = make_lenet5(TorchOptions{}, shape, 2);
  std::vector<float> params = initial(*model);
  std::vector<float> gradient(model->dimension());
  const std::vector<std::size_t> batch = all(data.samples());
  const double before = model->evaluate(params, data).loss;
  for (int step = 0; step < 30; ++step) {
    model->loss_and_gradient(params, data, batch, gradient);
    for (std::size_t k = 0; k < params.size(); ++k) params[k] -= 0.1f * gradient[k];
  }
  const Evaluation after = model->evaluate(params, data);
  CHECK(after.loss < 0.5 * before);
  CHECK(after.accuracy > 0.9);
}

TEST_CASE("torch models refuse unusable shapes, depths and data") {
  CHECK_THROWS_WITH(make_resnet(21, TorchOptions{}, ImageShape{3, 32, 32}, 10),
                    Catch::Contains("depth 21") && Catch::Contains("6n + 2"));
  CHECK_THROWS_AS(make_resnet(2, TorchOptions{}, ImageShape{3, 32, 32}, 10), InputError);
  CHECK_THROWS_WITH(make_lenet5(TorchOptions{}, ImageShape{1, 8, 8}, 10), Catch::Contains("1x8x8"));
  CHECK_THROWS_WITH(make_lenet5(TorchOptions{}, ImageShape{}, 10), Catch::Contains("image data"));
  CHECK_THROWS_WITH(make_lenet5(TorchOptions{}, ImageShape{1, 28, 28}, 1), Catch::Contains("2 classes"));
  TorchOptions no_threads;
  no_threads.threads = 0;
  CHECK_THROWS_AS(make_lenet5(no_threads, ImageShape{1, 28, 28}, 10), InputError);
  const auto model = make_lenet5(TorchOptions{}, ImageShape{1, 28, 28}, 10);
  const Dataset cifar_like = images(2, ImageShape{3, 32, 32}, 10, 1);
  const std::vector<float> params = initial(*model);
  std::vector<float> gradient(model->dimension());
  const std::vector<std::size_t> batch{0, 1};
  CHECK_THROWS_WITH(model->loss_and_gradient(params, cifar_like, batch, gradient),
                    Catch::Contains("3072") && Catch::Contains("1x28x28"));
  CHECK_THROWS_AS(model->evaluate(params, cifar_like), InputError);
}

TEST_CASE("a deep ResNet's first evaluation uses statistics of the data, not the built ones") {
  // Under the built statistics (means 0, variances 1) every block adds to an unnormalised residual stream:
  // ResNet-110's first loss was about 1.5e8. With each batch's own statistics it is what a training step on
  // the same batch sees (above ln(classes): 54 residual blocks add up before the last layer).
  const ImageShape shape{1, 8, 8};
  const int classes = 4;
  const Dataset data = images(8, shape, classes, 6);
  const auto model = make_resnet(110, TorchOptions{}, shape, classes);
  const std::vector<float> params = initial(*model);
  std::vector<float> fresh(model->state_dimension());
  model->initialize_state(fresh);
  const Evaluation first = model->evaluate(params, data);
  INFO("first loss " << first.loss);
  CHECK(std::isfinite(first.loss));
  CHECK(first.loss < 20);
  CHECK(model->evaluate_with_state(params, fresh, data).loss == first.loss);
  // The evaluation left the running statistics as they were: still the built ones.
  std::vector<float> unchanged = fresh;
  CHECK(model->evaluate_with_state(params, unchanged, data).loss == first.loss);
  CHECK(unchanged == fresh);
  // The figure a training step sees on the same 8 samples (one batch, its own statistics).
  std::vector<float> trained = fresh, gradient(model->dimension());
  const double training_loss = model->loss_and_gradient_with_state(params, trained, data, all(8), gradient);
  CHECK(first.loss == Approx(training_loss).epsilon(1e-4));
  // Once training has produced statistics, evaluation uses them (and they differ from a batch's own).
  CHECK(trained != fresh);
  CHECK(model->evaluate_with_state(params, trained, data).loss != first.loss);
}
