#pragma once
// What the concrete models share. Each model writes its mathematics once, as a kernel over a block of samples
// templated on the scalar type; BlockModel turns that kernel into the Model interface (minibatch gathering,
// the l2 term, evaluation in chunks) in single precision for training, and also in double precision for
// finite-difference checks and for solve_optimum.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "algorithms/learning/model.hpp"

namespace sgdsim::learning {

template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

// Sums over the samples of one block.
struct BlockSums {
  double loss = 0;          // sum of per-sample losses (without l2)
  std::size_t correct = 0;  // correctly classified samples
};

class ModelBase : public Model {
 public:
  using Model::loss_and_gradient;
  // loss_and_gradient in double precision: same definition, used by tests and by solve_optimum.
  virtual double loss_and_gradient(std::span<const double> params, const Dataset& data,
                                   std::span<const std::size_t> batch, std::span<double> gradient) const = 0;
  // Loss and accuracy of double-precision parameters.
  virtual Evaluation evaluate(std::span<const double> params, const Dataset& data) const = 0;
  using Model::evaluate;
  double l2() const { return l2_; }
  virtual bool convex() const = 0;

 protected:
  explicit ModelBase(double l2) : l2_(l2) {}
  double l2_;
};

// Kernel requirements (Derived):
//   template <typename T> BlockSums block(const T* params, const RowMatrix<T>& x, const Dataset& data,
//                                         std::span<const std::size_t> rows, T* gradient) const;
//     x holds the features of data rows `rows`; adds the *sum* of per-sample gradients into `gradient` unless
//     it is null.
//   using EvalScalar = float or double: the precision of evaluate().
template <class Derived>
class BlockModel : public ModelBase {
 public:
  using ModelBase::ModelBase;

  double loss_and_gradient(std::span<const float> params, const Dataset& data,
                           std::span<const std::size_t> batch, std::span<float> gradient) const override {
    return minibatch<float>(params, data, batch, gradient);
  }
  double loss_and_gradient(std::span<const double> params, const Dataset& data,
                           std::span<const std::size_t> batch, std::span<double> gradient) const override {
    return minibatch<double>(params, data, batch, gradient);
  }

  Evaluation evaluate(std::span<const float> params, const Dataset& data,
                      std::span<const std::size_t> subset) const override {
    return evaluate_as<typename Derived::EvalScalar>(params, data, subset);
  }
  Evaluation evaluate(std::span<const double> params, const Dataset& data) const override {
    return evaluate_as<double>(params, data, {});
  }

 private:
  static constexpr Eigen::Index chunk_rows = 512;

  const Derived& self() const { return static_cast<const Derived&>(*this); }

  void check_size(std::size_t size, const char* what) const {
    if (size != dimension()) {
      throw std::invalid_argument(std::string("model: ") + what + " has " + std::to_string(size) +
                                  " values, the model has " + std::to_string(dimension()) + " parameters");
    }
  }

  template <typename P>
  static double squared_norm(std::span<const P> params) {
    double sum = 0;
    for (P p : params) sum += static_cast<double>(p) * static_cast<double>(p);
    return sum;
  }

  template <typename T>
  static RowMatrix<T> gather(const Dataset& data, std::span<const std::size_t> rows) {
    RowMatrix<T> x(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(data.dimension()));
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i] >= data.samples()) throw std::out_of_range("model: sample index beyond the data set");
      data.copy_row(rows[i], x.row(static_cast<Eigen::Index>(i)).data());
    }
    return x;
  }

  template <typename T>
  double minibatch(std::span<const T> params, const Dataset& data, std::span<const std::size_t> batch,
                   std::span<T> gradient) const {
    check_size(params.size(), "params");
    check_size(gradient.size(), "gradient");
    if (batch.empty()) throw std::invalid_argument("model: empty minibatch");
    std::fill(gradient.begin(), gradient.end(), T(0));
    const RowMatrix<T> x = gather<T>(data, batch);
    const BlockSums sums = self().template block<T>(params.data(), x, data, batch, gradient.data());
    const T inverse = T(1) / static_cast<T>(batch.size());
    const T l2 = static_cast<T>(l2_);
    for (std::size_t k = 0; k < gradient.size(); ++k) gradient[k] = gradient[k] * inverse + l2 * params[k];
    return sums.loss / static_cast<double>(batch.size()) + 0.5 * l2_ * squared_norm(params);
  }

  template <typename T, typename P>
  Evaluation evaluate_as(std::span<const P> params_in, const Dataset& data,
                         std::span<const std::size_t> subset) const {
    check_size(params_in.size(), "params");
    std::vector<T> converted;
    const T* params;
    if constexpr (std::is_same_v<T, P>) {
      params = params_in.data();
    } else {
      converted.assign(params_in.begin(), params_in.end());
      params = converted.data();
    }
    const std::size_t n = subset.empty() ? data.samples() : subset.size();
    Evaluation result;
    if (n == 0) {
      result.loss = result.accuracy = std::numeric_limits<double>::quiet_NaN();
      return result;
    }
    BlockSums total;
    std::vector<std::size_t> rows;
    for (std::size_t start = 0; start < n; start += chunk_rows) {
      const std::size_t count = std::min<std::size_t>(chunk_rows, n - start);
      if (subset.empty()) {
        rows.resize(count);
        std::iota(rows.begin(), rows.end(), start);
      } else {
        rows.assign(subset.begin() + static_cast<std::ptrdiff_t>(start),
                    subset.begin() + static_cast<std::ptrdiff_t>(start + count));
      }
      const RowMatrix<T> x = gather<T>(data, rows);
      const BlockSums sums = self().template block<T>(params, x, data, rows, nullptr);
      total.loss += sums.loss;
      total.correct += sums.correct;
    }
    result.loss = total.loss / static_cast<double>(n) + 0.5 * l2_ * squared_norm(params_in);
    result.accuracy = self().classifies() ? static_cast<double>(total.correct) / static_cast<double>(n)
                                          : std::numeric_limits<double>::quiet_NaN();
    return result;
  }
};

}  // namespace sgdsim::learning
