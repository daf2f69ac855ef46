#include "algorithms/learning/optimum.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <deque>
#include <numeric>

#include <fmt/format.h>

#include "algorithms/learning/generalized_linear_model.hpp"
#include "algorithms/learning/softmax_model.hpp"
#include "common/error.hpp"

namespace sgdsim::learning {

namespace {

constexpr double newton_tolerance = 1e-13;
constexpr int newton_iterations = 100;
// Above this many parameters the (d + 1)^2 Hessian gets expensive and L-BFGS is used for every convex model.
constexpr std::size_t newton_max_dimension = 200;
constexpr double lbfgs_tolerance = 1e-12;
constexpr int lbfgs_iterations = 20000;
constexpr int lbfgs_memory = 10;

using Eigen::VectorXd;

// The full objective and its gradient in double precision.
struct Objective {
  const ModelBase& model;
  const Dataset& data;
  std::vector<std::size_t> all;

  Objective(const ModelBase& m, const Dataset& d) : model(m), data(d), all(d.samples()) {
    std::iota(all.begin(), all.end(), 0);
  }
  double operator()(const VectorXd& theta, VectorXd& gradient) const {
    gradient.resize(theta.size());
    return model.loss_and_gradient(std::span<const double>(theta.data(), theta.size()), data, all,
                                   std::span<double>(gradient.data(), gradient.size()));
  }
};

[[noreturn]] void not_attained(const ModelBase& model) {
  throw InputError("model: the optimum of the training loss was not reached (" +
                   std::string(model.l2() == 0
                                   ? "l2 = 0: the data may be separable, so that no minimiser exists; "
                                     "set model.l2 > 0"
                                   : "the problem is badly conditioned") +
                   ")");
}

VectorXd newton(const GeneralizedLinearModel& model, const Dataset& data) {
  const Objective f(model, data);
  VectorXd theta = VectorXd::Zero(static_cast<Eigen::Index>(model.dimension()));
  VectorXd gradient, trial_gradient;
  double value = f(theta, gradient);
  bool converged = false;
  for (int iteration = 0; iteration < newton_iterations; ++iteration) {
    const Eigen::MatrixXd hessian = model.hessian(std::span<const double>(theta.data(), theta.size()), data);
    const Eigen::LDLT<Eigen::MatrixXd> factor(hessian);
    const VectorXd step = -factor.solve(gradient);
    const double decrement = -gradient.dot(step);  // lambda^2
    if (!std::isfinite(decrement)) not_attained(model);
    const bool small = decrement / 2 <= newton_tolerance * std::max(1.0, std::abs(value));
    if (small && converged) break;  // the extra step is taken
    converged = converged || small;
    if (decrement <= 0) break;  // exactly stationary
    bool moved = false;
    double t = 1;
    for (int halving = 0; halving < 60 && !moved; ++halving, t /= 2) {
      const VectorXd trial = theta + t * step;
      const double trial_value = f(trial, trial_gradient);
      // Armijo; near the optimum, where decreases reach rounding, any step that does not increase f.
      if (trial_value <= value - 0.25 * t * decrement || (converged && trial_value <= value)) {
        theta = trial;
        value = trial_value;
        gradient = trial_gradient;
        moved = true;
      }
    }
    if (!moved) break;
  }
  if (!converged) not_attained(model);
  return theta;
}

// The work budget counts sample·parameter products (one evaluation of f over the training set costs samples·d
// of them). Counting work rather than seconds keeps f* (and so the trace) the same on every machine.
VectorXd lbfgs(const ModelBase& model, const Dataset& data, double work_budget) {
  const Objective f(model, data);
  const double per_evaluation = static_cast<double>(data.samples()) * static_cast<double>(model.dimension());
  double work = per_evaluation;
  const auto over_budget = [&] {
    if (work <= work_budget) return;
    throw InputError(fmt::format(
        "model: f* was not reached within the solver's budget of {:.3g} sample-parameter products ({} "
        "evaluations of the loss over {} samples x {} parameters); use a smaller training set or "
        "eval.suboptimality = false",
        work_budget, static_cast<long long>(work_budget / per_evaluation), data.samples(),
        model.dimension()));
  };
  VectorXd theta = VectorXd::Zero(static_cast<Eigen::Index>(model.dimension()));
  VectorXd gradient, trial_gradient;
  double value = f(theta, gradient);
  std::deque<std::pair<VectorXd, VectorXd>> pairs;  // (s, y)
  for (int iteration = 0; iteration < lbfgs_iterations; ++iteration) {
    const double bound = model.l2() > 0 ? gradient.squaredNorm() / (2 * model.l2()) : gradient.squaredNorm();
    if (bound <= lbfgs_tolerance * std::max(1.0, std::abs(value))) return theta;
    // Two-loop recursion for the quasi-Newton direction.
    VectorXd q = gradient;
    std::vector<double> alphas(pairs.size());
    for (std::size_t k = pairs.size(); k-- > 0;) {
      alphas[k] = pairs[k].first.dot(q) / pairs[k].second.dot(pairs[k].first);
      q -= alphas[k] * pairs[k].second;
    }
    if (!pairs.empty()) q *= pairs.back().first.dot(pairs.back().second) / pairs.back().second.squaredNorm();
    for (std::size_t k = 0; k < pairs.size(); ++k) {
      const double beta = pairs[k].second.dot(q) / pairs[k].second.dot(pairs[k].first);
      q += (alphas[k] - beta) * pairs[k].first;
    }
    VectorXd direction = -q;
    double slope = gradient.dot(direction);
    if (!(slope < 0)) {
      pairs.clear();
      direction = -gradient;
      slope = -gradient.squaredNorm();
    }
    double t = pairs.empty() ? 1.0 / std::max(1.0, gradient.norm()) : 1.0;
    bool moved = false;
    for (int halving = 0; halving < 60; ++halving, t /= 2) {
      const VectorXd trial = theta + t * direction;
      work += per_evaluation;
      over_budget();
      const double trial_value = f(trial, trial_gradient);
      if (trial_value <= value + 1e-4 * t * slope) {
        VectorXd s = trial - theta, y = trial_gradient - gradient;
        if (s.dot(y) > 1e-16 * s.norm() * y.norm()) {
          pairs.emplace_back(std::move(s), std::move(y));
          if (pairs.size() > lbfgs_memory) pairs.pop_front();
        }
        theta = trial;
        value = trial_value;
        gradient = trial_gradient;
        moved = true;
        break;
      }
    }
    if (!moved) return theta;  // no decrease representable in double precision: at the rounding floor
  }
  not_attained(model);
}

const ModelBase& convex_model(const Model& model) {
  const auto* base = dynamic_cast<const ModelBase*>(&model);
  if (!base || !base->convex()) {
    throw InputError(
        "model: the optimal loss f* is only computed for convex models (logistic, linear, softmax)");
  }
  return *base;
}

}  // namespace

bool has_optimum(const Model& model) {
  const auto* base = dynamic_cast<const ModelBase*>(&model);
  return base && base->convex();
}

std::vector<double> solve_minimizer(const Model& model, const Dataset& train, double work_budget) {
  const ModelBase& base = convex_model(model);
  if (train.samples() == 0) throw InputError("model: no training samples to compute the optimum on");
  VectorXd theta;
  const auto* glm = dynamic_cast<const GeneralizedLinearModel*>(&base);
  if (glm && glm->dimension() <= newton_max_dimension)
    theta = newton(*glm, train);
  else
    theta = lbfgs(base, train, work_budget);
  return {theta.data(), theta.data() + theta.size()};
}

double solve_optimum(const Model& model, const Dataset& train, double work_budget) {
  const std::vector<double> theta = solve_minimizer(model, train, work_budget);
  return convex_model(model).evaluate(theta, train).loss;
}

}  // namespace sgdsim::learning
