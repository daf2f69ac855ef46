// The ImageNet ResNets: torchvision's parameter counts, the known ResNet-50 flop count, the layers an
// accelerator's roofline prices, and a gradient that flows on a small image.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "../learning/helpers.hpp"
#include "algorithms/learning/torch/torch_model.hpp"
#include "common/error.hpp"

using namespace sgdsim;
using namespace sgdsim::learning;

TEST_CASE("the ImageNet ResNets have torchvision's parameter counts") {
  // torchvision.models.resnet18/34/50/101 (the same layers, BatchNorm scales and shifts included).
  const ImageShape imagenet{3, 224, 224};
  CHECK(make_imagenet_resnet(18, TorchOptions{}, imagenet, 1000)->dimension() == 11689512);
  CHECK(make_imagenet_resnet(34, TorchOptions{}, imagenet, 1000)->dimension() == 21797672);
  CHECK(make_imagenet_resnet(50, TorchOptions{}, imagenet, 1000)->dimension() == 25557032);
  CHECK(make_imagenet_resnet(101, TorchOptions{}, imagenet, 1000)->dimension() == 44549160);
}

TEST_CASE("ResNet-50's flops are the known 4.1 G multiply-adds forward, and its layers add up to them") {
  const auto model = make_imagenet_resnet(50, TorchOptions{}, ImageShape{3, 224, 224}, 1000);
  const std::vector<LayerCost> layers = model->layer_costs();
  // 53 convolutions, 53 BatchNorms, 49 ReLUs, a max-pool, 16 additions, the pooling, fc and the loss.
  CHECK(layers.size() == 53 + 53 + 49 + 1 + 16 + 1 + 1 + 1);
  double flops = 0, weighted_forward = 0;
  for (const LayerCost& layer : layers) {
    flops += layer.flops;
    // A layer with weights launches forward, the weight gradient and (not the first) the input gradient;
    // its forward is a third of its flops (half for the first layer, which has no input gradient).
    if (layer.weight_values > 0) weighted_forward += layer.flops / layer.kernels;
  }
  CHECK(flops == Approx(model->flops_per_sample()).epsilon(1e-12));
  // A multiply-add is 2 flops: the 4.1 G multiply-adds forward usually quoted for ResNet-50 v1.5 (4.089e9
  // counted here) are about 8.2 G flops.
  CHECK(weighted_forward / 2 == Approx(4.1e9).epsilon(0.02));
  for (const LayerCost& layer : layers) {
    CHECK(layer.values > 0);
    CHECK(layer.kernels >= 2);
  }
}

TEST_CASE("an ImageNet ResNet computes a gradient, and refuses depths and images it does not have") {
  const ImageShape shape{3, 32, 32};
  const auto model = make_imagenet_resnet(18, TorchOptions{}, shape, 5);
  Dataset data = testing::random_dataset(4, shape.size(), 5, 3);
  data.image = shape;
  std::vector<float> params(model->dimension()), gradient(model->dimension());
  Rng rng(1);
  model->initialize(params, rng);
  const std::vector<std::size_t> batch = {0, 1, 2, 3};
  const double loss = model->loss_and_gradient(params, data, batch, gradient);
  CHECK(std::isfinite(loss));
  CHECK(std::any_of(gradient.begin(), gradient.end(), [](float g) { return g != 0.0f; }));
  CHECK_THROWS_AS(make_imagenet_resnet(20, TorchOptions{}, shape, 5), InputError);
  CHECK_THROWS_AS(make_imagenet_resnet(50, TorchOptions{}, ImageShape{3, 16, 16}, 5), InputError);
}
