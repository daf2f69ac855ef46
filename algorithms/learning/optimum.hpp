#pragma once
// The optimal value f* = min_theta f(theta) of a convex model's regularised training loss
// f(theta) = (1/n) sum_i loss_i(theta) + (l2 / 2) ||theta||^2, so that traces can report f(theta_t) - f*.
//   logistic, linear (up to 200 parameters; the Hessian costs samples·d² per iteration): Newton's method with
//   backtracking line search on the exact Hessian (d + 1 unknowns),
//     stopped once the Newton decrement lambda^2 / 2 (which estimates f - f* near the optimum) is below
//     1e-13 * max(1, |f|), plus one more step; quadratic convergence leaves f - f* at double rounding (~1e-15
//     relative).
//   softmax: L-BFGS (10 pairs) in double precision, stopped when ||grad||^2 / (2 l2), an upper bound on f -
//   f* by
//     l2-strong convexity, is below 1e-12 * max(1, |f|), or when no step decreases f any more (rounding
//     floor).
// L-BFGS stops after 2e11 sample·parameter products of work (about a minute; e.g. 425 evaluations of f on
// Fashion-MNIST with softmax) with an InputError: the run then has no suboptimality column. A work count, not
// a clock, so that f* does not depend on the machine.
// All computations in double on the stored (float) features, the same data that Model::evaluate sees.
#include "algorithms/learning/dataset.hpp"
#include "algorithms/learning/model.hpp"

namespace sgdsim::learning {

// True when solve_optimum can handle the model (convex models; not the MLP).
bool has_optimum(const Model& model);

// f* for the model on `train`. An InputError when the model is not convex or the optimum is not attained (l2
// = 0 on separable data).
// L-BFGS's work budget in sample·parameter products (see above).
inline constexpr double optimum_work_budget = 2e11;
double solve_optimum(const Model& model, const Dataset& train, double work_budget = optimum_work_budget);

// The minimiser found (double precision), for tests and diagnostics.
std::vector<double> solve_minimizer(const Model& model, const Dataset& train,
                                    double work_budget = optimum_work_budget);

}  // namespace sgdsim::learning
