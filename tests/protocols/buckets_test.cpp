// Gradient buckets as DDP forms them, and the layers whose backward pass each one waits for.
#include <catch2/catch.hpp>

#include "algorithms/protocols/buckets.hpp"

using namespace sgdsim;
using compression::Tensor;
using protocols::gradient_buckets;

TEST_CASE("buckets wait for the backward pass down to the first layer of their tensors") {
  // Layers 0..6: a convolution (weight; layer 0), BatchNorm (scale, shift; 1), ReLU (2), a linear layer
  // (weight, bias; 3), ReLU (4), a linear layer (weight, bias; 5), the loss (6).
  const compression::Layout layout({Tensor{4, 25}, Tensor{1, 4}, Tensor{1, 4}, Tensor{10, 100}, Tensor{1, 10},
                                    Tensor{3, 10}, Tensor{1, 3}});
  const std::vector<std::size_t> tensor_layers = {0, 1, 1, 3, 3, 5, 5};
  const std::size_t d = 100 + 4 + 4 + 1000 + 10 + 30 + 3;
  // 100 bytes: {last linear} (33 floats), {first linear} (1010), {conv, BatchNorm} (108).
  const std::vector<protocols::GradientBucket> buckets = gradient_buckets(layout, d, 100);
  REQUIRE(buckets.size() == 3);
  CHECK(buckets[0].first_tensor == 5);
  CHECK(buckets[1].first_tensor == 3);
  CHECK(buckets[2].first_tensor == 0);
  CHECK(buckets[2].tensors.size() == 3);
  using Range = std::pair<std::size_t, std::size_t>;
  CHECK(protocols::backward_layers(buckets, tensor_layers, 7) == std::vector<Range>{{5, 7}, {3, 5}, {0, 3}});
  // A bucket whose tensors come after an earlier-ready bucket's is ready with it (an empty piece), and the
  // last bucket goes down to layer 0 even when its first tensor's layer is above.
  CHECK(protocols::backward_layers(buckets, std::vector<std::size_t>{1, 1, 1, 6, 6, 2, 2}, 7) ==
        std::vector<Range>{{2, 7}, {2, 2}, {0, 2}});
}
