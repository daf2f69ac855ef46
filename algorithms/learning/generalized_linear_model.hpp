#pragma once
// Models whose prediction is one linear score z = w·x + b, with parameters [w (d values), b]:
//   logistic  loss log(1 + exp(z)) - y z for labels y in {0, 1} (y = 1 for the positive class): binary
//             cross-entropy; predicts the positive class when z > 0.
//   linear    loss (z - t)^2 / 2 for real targets t: least squares; accuracy does not apply.
// Both add (l2 / 2) ||theta||^2 over all parameters, bias included, so that with l2 > 0 the objective is
// strongly convex and its optimum unique (solve_optimum relies on it).
#include "algorithms/learning/model_base.hpp"

namespace sgdsim::learning {

class GeneralizedLinearModel final : public BlockModel<GeneralizedLinearModel> {
 public:
  enum class Link { logistic, linear };
  using EvalScalar = double;

  // For logistic, samples whose label index is `positive_class` are the positives (one-vs-rest on multiclass
  // data).
  GeneralizedLinearModel(Link link, std::size_t features, double l2, int positive_class = 1);

  std::size_t dimension() const override { return features_ + 1; }
  void initialize(std::span<float> params, Rng& rng) const override;
  double flops_per_sample() const override;
  bool convex() const override { return true; }
  bool classifies() const { return link_ == Link::logistic; }
  Link link() const { return link_; }
  int positive_class() const { return positive_class_; }

  // The Hessian of the full objective (mean loss + l2 term) at `params`, for Newton's method.
  Eigen::MatrixXd hessian(std::span<const double> params, const Dataset& data) const;

  template <typename T>
  BlockSums block(const T* params, const RowMatrix<T>& x, const Dataset& data,
                  std::span<const std::size_t> rows, T* gradient) const;

 private:
  Link link_;
  std::size_t features_;
  int positive_class_;
};

}  // namespace sgdsim::learning
