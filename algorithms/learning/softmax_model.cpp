#include "algorithms/learning/softmax_model.hpp"

#include "common/spec.hpp"

namespace sgdsim::learning {

template <typename T>
double softmax_cross_entropy(RowMatrix<T>& scores, const Dataset& data, std::span<const std::size_t> rows,
                             std::size_t& correct) {
  double loss = 0;
  const Eigen::Index k = scores.cols();
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    const int label = data.labels[rows[static_cast<std::size_t>(i)]];
    Eigen::Index best = 0;
    const T top = scores.row(i).maxCoeff(&best);
    correct += best == label;
    // Shifting by the maximum keeps exp from overflowing; the sum is at least 1.
    double sum = 0;
    for (Eigen::Index j = 0; j < k; ++j) sum += std::exp(static_cast<double>(scores(i, j) - top));
    const double log_sum = static_cast<double>(top) + std::log(sum);
    loss += log_sum - static_cast<double>(scores(i, label));
    for (Eigen::Index j = 0; j < k; ++j) {
      scores(i, j) = static_cast<T>(std::exp(static_cast<double>(scores(i, j)) - log_sum));
    }
  }
  return loss;
}

template double softmax_cross_entropy<float>(RowMatrix<float>&, const Dataset&, std::span<const std::size_t>,
                                             std::size_t&);
template double softmax_cross_entropy<double>(RowMatrix<double>&, const Dataset&,
                                              std::span<const std::size_t>, std::size_t&);

SoftmaxModel::SoftmaxModel(std::size_t features, int classes, double l2)
    : BlockModel(l2), features_(features), classes_(classes) {}

void SoftmaxModel::initialize(std::span<float> params, Rng&) const {
  // Convex objective: start from zeros (uniform predictions), as is customary.
  std::fill(params.begin(), params.end(), 0.0f);
}

// Multiply-add = 2 flops, exp/log = 1: scores 2dK + K, softmax and loss 4K + 1, gradient W += g x^T: 2dK,
// bias K.
double SoftmaxModel::flops_per_sample() const {
  const double d = static_cast<double>(features_);
  const double k = classes_;
  return 4.0 * d * k + 6.0 * k + 1.0;
}

template <typename T>
BlockSums SoftmaxModel::block(const T* params, const RowMatrix<T>& x, const Dataset& data,
                              std::span<const std::size_t> rows, T* gradient) const {
  const auto d = static_cast<Eigen::Index>(features_);
  const Eigen::Index k = classes_;
  const Eigen::Map<const RowMatrix<T>> w(params, k, d);
  const Eigen::Map<const Vector<T>> b(params + k * d, k);
  RowMatrix<T> scores = x * w.transpose();
  scores.rowwise() += b.transpose();
  BlockSums sums;
  sums.loss = softmax_cross_entropy(scores, data, rows, sums.correct);
  if (gradient) {
    // dloss/dz = p - onehot(y)
    for (std::size_t i = 0; i < rows.size(); ++i)
      scores(static_cast<Eigen::Index>(i), data.labels[rows[i]]) -= T(1);
    Eigen::Map<RowMatrix<T>> gw(gradient, k, d);
    Eigen::Map<Vector<T>> gb(gradient + k * d, k);
    gw.noalias() += scores.transpose() * x;
    gb += scores.colwise().sum().transpose();
  }
  return sums;
}

template BlockSums SoftmaxModel::block<float>(const float*, const RowMatrix<float>&, const Dataset&,
                                              std::span<const std::size_t>, float*) const;
template BlockSums SoftmaxModel::block<double>(const double*, const RowMatrix<double>&, const Dataset&,
                                               std::span<const std::size_t>, double*) const;

namespace {
const bool registered_softmax_model = models().add(
    {"softmax", "Multinomial logistic regression over the K classes.", {}, {"convex", "needs_class_labels"}},
    [](Spec& spec, const Dataset& train, const std::string&) {
      return std::make_unique<SoftmaxModel>(train.dimension(), train.classes, spec.number("l2"));
    });
}  // namespace

}  // namespace sgdsim::learning
