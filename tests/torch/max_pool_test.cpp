// max_pool_2x2 is at::max_pool2d(x, 2) bit for bit: outputs, and the input gradients its choice of each
// maximum gives, on inputs full of ties (ReLU's zeros, equal values, +0 against -0), NaNs, infinities and odd
// sizes.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "algorithms/learning/torch/max_pool.hpp"

namespace {

bool same_bits(const torch::Tensor& a, const torch::Tensor& b) {
  if (!a.sizes().equals(b.sizes())) return false;
  const torch::Tensor x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.data_ptr<float>(), y.data_ptr<float>(),
                     static_cast<std::size_t>(x.numel()) * sizeof(float)) == 0;
}

// Values drawn from a few: many exact ties, both zeros, and (when asked) NaN and infinities.
torch::Tensor tricky(std::vector<std::int64_t> sizes, std::mt19937& random, bool specials) {
  torch::Tensor t = torch::empty(sizes, torch::kFloat32);
  float* p = t.data_ptr<float>();
  const float pool[] = {0.0f, -0.0f, 1.5f, -2.0f, 1.5f, 0.25f, 3.0f, 0.0f};
  for (std::int64_t i = 0; i < t.numel(); ++i) {
    const unsigned pick = random() % 16;
    if (pick < 8) {
      p[i] = pool[pick];
    } else if (specials && pick == 8) {
      p[i] = std::numeric_limits<float>::quiet_NaN();
    } else if (specials && pick == 9) {
      p[i] = (random() % 2 ? 1 : -1) * std::numeric_limits<float>::infinity();
    } else {
      p[i] = static_cast<float>(random()) / 4294967296.0f - 0.5f;
    }
  }
  return t;
}

}  // namespace

TEST_CASE("max_pool_2x2: at::max_pool2d's outputs and gradients, bit for bit", "[torch][pool]") {
  std::mt19937 random(4242);
  for (const bool specials : {false, true}) {
    for (const auto& shape : std::vector<std::vector<std::int64_t>>{
             {2, 6, 28, 28}, {3, 16, 10, 10}, {1, 3, 7, 9}, {4, 2, 2, 2}, {1, 1, 3, 3}, {5, 4, 13, 6}}) {
      INFO("shape " << shape[0] << "x" << shape[1] << "x" << shape[2] << "x" << shape[3] << " specials "
                    << specials);
      const torch::Tensor input = tricky(shape, random, specials);
      const torch::Tensor ours_in = input.clone().requires_grad_(true);
      const torch::Tensor theirs_in = input.clone().requires_grad_(true);
      const torch::Tensor ours = sgdsim::learning::max_pool_2x2(ours_in);
      const torch::Tensor theirs =
          torch::nn::functional::max_pool2d(theirs_in, torch::nn::functional::MaxPool2dFuncOptions(2));
      REQUIRE(same_bits(ours.detach(), theirs.detach()));
      // A gradient with zeros of both signs: which input each lands on, and +0 + -0, must agree too.
      const torch::Tensor upstream = tricky(ours.sizes().vec(), random, false);
      ours.backward(upstream);
      theirs.backward(upstream);
      REQUIRE(same_bits(ours_in.grad(), theirs_in.grad()));
      {
        torch::NoGradGuard no_grad;  // evaluation's path
        REQUIRE(same_bits(sgdsim::learning::max_pool_2x2(input), theirs.detach()));
      }
    }
  }
}

TEST_CASE("max_pool_2x2: a non-contiguous input and a window of one NaN among numbers", "[torch][pool]") {
  torch::Tensor x = torch::arange(2 * 4 * 4, torch::kFloat32).reshape({2, 1, 4, 4}).transpose(2, 3);
  REQUIRE_FALSE(x.is_contiguous());
  x.select(0, 1).select(0, 0).index_put_({1, 1}, std::numeric_limits<float>::quiet_NaN());
  const torch::Tensor ours = sgdsim::learning::max_pool_2x2(x);
  const torch::Tensor theirs =
      torch::nn::functional::max_pool2d(x, torch::nn::functional::MaxPool2dFuncOptions(2));
  CHECK(same_bits(ours, theirs));
  CHECK(std::isnan(ours[1][0][0][0].item<float>()));
  CHECK(ours[0][0][1][1].item<float>() == 15.0f);
  // A window that does not fit is refused, as libtorch refuses it.
  CHECK_THROWS(sgdsim::learning::max_pool_2x2(torch::zeros({1, 1, 3, 1})));
}
