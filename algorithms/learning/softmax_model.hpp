#pragma once
// Multinomial logistic regression over K classes: scores z = W x + b (W is K x d, row-major, followed by b in
// the parameter vector), loss = log sum_k exp(z_k) - z_y (cross-entropy), prediction argmax_k z_k. Convex;
// the (l2 / 2) ||theta||^2 term covers all parameters.
#include "algorithms/learning/model_base.hpp"

namespace sgdsim::learning {

class SoftmaxModel final : public BlockModel<SoftmaxModel> {
 public:
  using EvalScalar = double;

  SoftmaxModel(std::size_t features, int classes, double l2);

  std::size_t dimension() const override { return (features_ + 1) * static_cast<std::size_t>(classes_); }
  void initialize(std::span<float> params, Rng& rng) const override;
  double flops_per_sample() const override;
  // W (classes × features), then the bias.
  std::vector<Shape> tensor_shapes() const override {
    return {{static_cast<std::size_t>(classes_), features_}, {1, static_cast<std::size_t>(classes_)}};
  }
  std::vector<std::size_t> tensor_sizes() const override { return sizes_of(tensor_shapes()); }
  bool convex() const override { return true; }
  bool classifies() const { return true; }

  template <typename T>
  BlockSums block(const T* params, const RowMatrix<T>& x, const Dataset& data,
                  std::span<const std::size_t> rows, T* gradient) const;

 private:
  std::size_t features_;
  int classes_;
};

// Turns each row of `scores` into softmax probabilities in place and returns the summed cross-entropy of the
// rows' labels; counts rows whose largest score is the label. Shared with the MLP's output layer.
template <typename T>
double softmax_cross_entropy(RowMatrix<T>& scores, const Dataset& data, std::span<const std::size_t> rows,
                             std::size_t& correct);

}  // namespace sgdsim::learning
