// The models' parameter tensors (what per-tensor bucketing and PowerSGD see): shapes in flat-vector order.
#include <catch2/catch.hpp>

#include "algorithms/learning/generalized_linear_model.hpp"
#include "algorithms/learning/mlp_model.hpp"
#include "algorithms/learning/softmax_model.hpp"

using namespace sgdsim::learning;

namespace {
std::vector<std::pair<std::size_t, std::size_t>> pairs(const Model& m) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (const Model::Shape& s : m.tensor_shapes()) out.emplace_back(s.rows, s.cols);
  return out;
}
}  // namespace

TEST_CASE("softmax and MLP report their weight matrices (out × in) and biases that add up to d") {
  const SoftmaxModel softmax(7, 3, 0.0);
  CHECK(pairs(softmax) == std::vector<std::pair<std::size_t, std::size_t>>{{3, 7}, {1, 3}});
  CHECK(softmax.tensor_sizes() == std::vector<std::size_t>{21, 3});
  const MlpModel mlp(5, {4, 6}, 2, 0.0);
  CHECK(pairs(mlp) ==
        std::vector<std::pair<std::size_t, std::size_t>>{{4, 5}, {1, 4}, {6, 4}, {1, 6}, {2, 6}, {1, 2}});
  std::size_t total = 0;
  for (std::size_t s : mlp.tensor_sizes()) total += s;
  CHECK(total == mlp.dimension());
  // A model that does not say is one 1 × d vector.
  const GeneralizedLinearModel logistic(GeneralizedLinearModel::Link::logistic, 9, 0.0);
  CHECK(pairs(logistic) == std::vector<std::pair<std::size_t, std::size_t>>{{1, 10}});
}
