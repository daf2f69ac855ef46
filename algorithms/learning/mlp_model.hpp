#pragma once
// A multilayer perceptron: fully connected layers with ReLU between them and a softmax cross-entropy output.
// Layer l maps n_l inputs to n_{l+1} outputs with W_l (n_{l+1} x n_l, row-major) followed by b_l in the
// parameter vector, layers in order. Not convex; (l2 / 2) ||theta||^2 covers all parameters.
#include <vector>

#include "algorithms/learning/model_base.hpp"

namespace sgdsim::learning {

class MlpModel final : public BlockModel<MlpModel> {
 public:
  // Training and evaluation stay in single precision: the network is evaluated far more often than the
  // convex models' optimum matters, and no optimum is computed for it.
  using EvalScalar = float;

  MlpModel(std::size_t features, std::vector<std::size_t> hidden, int classes, double l2);

  std::size_t dimension() const override { return dimension_; }
  // He initialisation (normal, variance 2 / fan-in) for the ReLU layers, variance 1 / fan-in for the output
  // layer, zero biases; draws in parameter order.
  void initialize(std::span<float> params, Rng& rng) const override;
  double flops_per_sample() const override;
  double hidden_floats_per_sample() const override;
  // Per layer W_l (out × in), then b_l.
  std::vector<Shape> tensor_shapes() const override;
  std::vector<std::size_t> tensor_sizes() const override { return sizes_of(tensor_shapes()); }
  bool convex() const override { return false; }
  bool classifies() const { return true; }
  const std::vector<std::size_t>& widths() const { return widths_; }

  template <typename T>
  BlockSums block(const T* params, const RowMatrix<T>& x, const Dataset& data,
                  std::span<const std::size_t> rows, T* gradient) const;

 private:
  std::vector<std::size_t> widths_;   // n_0 = features, hidden sizes..., classes
  std::vector<std::size_t> offsets_;  // start of W_l in the parameter vector; b_l follows it
  std::size_t dimension_ = 0;
};

}  // namespace sgdsim::learning
