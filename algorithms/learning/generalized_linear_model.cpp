#include "algorithms/learning/generalized_linear_model.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "common/spec.hpp"

namespace sgdsim::learning {

namespace {

// log(1 + exp(z)) without overflow.
double softplus(double z) {
  return std::max(z, 0.0) + std::log1p(std::exp(-std::abs(z)));
}

double sigmoid(double z) {
  if (z >= 0) return 1.0 / (1.0 + std::exp(-z));
  const double e = std::exp(z);
  return e / (1.0 + e);
}

}  // namespace

GeneralizedLinearModel::GeneralizedLinearModel(Link link, std::size_t features, double l2, int positive_class)
    : BlockModel(l2), link_(link), features_(features), positive_class_(positive_class) {}

void GeneralizedLinearModel::initialize(std::span<float> params, Rng&) const {
  // The objective is convex: zeros are as good a start as any and keep runs comparable.
  std::fill(params.begin(), params.end(), 0.0f);
}

// Counting a multiply-add as 2 flops and exp/log as 1: score 2d + 1, loss and its derivative ~5 (logistic) or
// 3 (linear), gradient w += dz x: 2d, bias 1.
double GeneralizedLinearModel::flops_per_sample() const {
  return 4.0 * static_cast<double>(features_) + 2.0 + (link_ == Link::logistic ? 5.0 : 3.0);
}

template <typename T>
BlockSums GeneralizedLinearModel::block(const T* params, const RowMatrix<T>& x, const Dataset& data,
                                        std::span<const std::size_t> rows, T* gradient) const {
  const auto d = static_cast<Eigen::Index>(features_);
  const Eigen::Map<const Vector<T>> w(params, d);
  Vector<T> z = x * w;
  z.array() += params[d];
  BlockSums sums;
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    const std::size_t sample = rows[static_cast<std::size_t>(i)];
    const double zi = static_cast<double>(z[i]);
    double dz;
    if (link_ == Link::logistic) {
      const bool positive = data.labels[sample] == positive_class_;
      sums.loss += softplus(zi) - (positive ? zi : 0.0);
      dz = sigmoid(zi) - (positive ? 1.0 : 0.0);
      sums.correct += (zi > 0) == positive;
    } else {
      const double r = zi - static_cast<double>(data.targets[sample]);
      sums.loss += 0.5 * r * r;
      dz = r;
    }
    z[i] = static_cast<T>(dz);  // z now holds dloss/dz
  }
  if (gradient) {
    Eigen::Map<Vector<T>> gw(gradient, d);
    gw.noalias() += x.transpose() * z;
    gradient[d] += z.sum();
  }
  return sums;
}

template BlockSums GeneralizedLinearModel::block<float>(const float*, const RowMatrix<float>&, const Dataset&,
                                                        std::span<const std::size_t>, float*) const;
template BlockSums GeneralizedLinearModel::block<double>(const double*, const RowMatrix<double>&,
                                                         const Dataset&, std::span<const std::size_t>,
                                                         double*) const;

Eigen::MatrixXd GeneralizedLinearModel::hessian(std::span<const double> params, const Dataset& data) const {
  const auto n = static_cast<Eigen::Index>(data.samples());
  const auto d = static_cast<Eigen::Index>(features_);
  const Eigen::Map<const Eigen::VectorXd> w(params.data(), d);
  // Rows x~ = [x, 1] scaled by sqrt(phi''(z)/n), so that H = X~^T X~ + l2 I.
  Eigen::MatrixXd scaled(n, d + 1);
  std::vector<double> row(features_);
  for (Eigen::Index i = 0; i < n; ++i) {
    data.copy_row(static_cast<std::size_t>(i), row.data());
    scaled.row(i).head(d) = Eigen::Map<const Eigen::RowVectorXd>(row.data(), d);
  }
  scaled.col(d).setOnes();
  const Eigen::VectorXd z = scaled.leftCols(d) * w + Eigen::VectorXd::Constant(n, params[features_]);
  for (Eigen::Index i = 0; i < n; ++i) {
    double curvature = 1.0;
    if (link_ == Link::logistic) {
      const double s = sigmoid(z[i]);
      curvature = s * (1.0 - s);
    }
    scaled.row(i) *= std::sqrt(curvature / static_cast<double>(n));
  }
  Eigen::MatrixXd h = Eigen::MatrixXd::Zero(d + 1, d + 1);
  h.selfadjointView<Eigen::Lower>().rankUpdate(scaled.transpose());
  Eigen::MatrixXd full = h.selfadjointView<Eigen::Lower>();
  full.diagonal().array() += l2_;
  return full;
}

namespace {

std::string value_text(double v) {
  std::string text = json(v).dump();
  if (text.size() > 2 && text.ends_with(".0")) text.resize(text.size() - 2);
  return text;
}

// The class index of the positive class for a binary logistic model. On two-class data it defaults to the
// second class (label 1 or +1); on multiclass data it must be chosen, by its label as written in the data.
int positive_class(Spec& spec, const Dataset& train) {
  if (!spec.has("positive_class")) {
    if (train.classes == 2) {
      spec.echo("positive_class", train.class_values.empty() ? json(1) : json(train.class_values[1]));
      return 1;
    }
    spec.fail("positive_class",
              "the data has " + std::to_string(train.classes) +
                  " classes and \"logistic\" is binary: set \"positive_class\" to the label of "
                  "the class to separate from the others (one-vs-rest), or use \"softmax\"");
  }
  const double label = spec.number("positive_class");
  if (train.class_values.empty()) {
    if (label == std::floor(label) && label >= 0 && label < train.classes) return static_cast<int>(label);
  } else {
    for (std::size_t k = 0; k < train.class_values.size(); ++k) {
      if (train.class_values[k] == label) return static_cast<int>(k);
    }
  }
  std::string known;
  for (int k = 0; k < train.classes; ++k) {
    known += (k ? ", " : "") +
             (train.class_values.empty() ? std::to_string(k) : value_text(train.class_values[k]));
  }
  spec.fail("positive_class",
            "is " + value_text(label) + ", which is not a label of the data (labels: " + known + ")");
}

const bool registered_generalized_linear_model =
    models().add({"logistic",
                  "Binary logistic regression (one-vs-rest on multiclass data).",
                  {keys::number("positive_class", "The label (as written in the data) of the positive class.")
                       .computed_default("the second class on two-class data; required otherwise")},
                  {"convex", "needs_class_labels"}},
                 [](Spec& spec, const Dataset& train, const std::string&) {
                   const int positive = positive_class(spec, train);
                   return std::make_unique<GeneralizedLinearModel>(GeneralizedLinearModel::Link::logistic,
                                                                   train.dimension(), spec.number("l2"),
                                                                   positive);
                 }) &&
    models().add({"linear", "Least squares on real-valued targets.", {}, {"convex"}},
                 [](Spec& spec, const Dataset& train, const std::string&) {
                   if (train.targets.size() != train.samples()) {
                     spec.fail(
                         "kind",
                         "\"linear\" (least squares) needs real-valued targets, which this data set does "
                         "not have (use a synthetic \"linear\" problem or a LIBSVM file)");
                   }
                   return std::make_unique<GeneralizedLinearModel>(GeneralizedLinearModel::Link::linear,
                                                                   train.dimension(), spec.number("l2"));
                 });

}  // namespace

}  // namespace sgdsim::learning
