// The gossip matrix W and its spectral gap.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <Eigen/Dense>

#include "common/error.hpp"
#include "common/rng.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::topology {

namespace {

double weight(const Mixing& mixing, const Topology& topology, std::size_t i, std::size_t j) {
  const auto& list = topology.neighbors[i];
  const auto it = std::lower_bound(list.begin(), list.end(), j);
  if (it == list.end() || *it != j) return 0.0;
  return mixing.neighbor[i][static_cast<std::size_t>(it - list.begin())];
}

// Symmetric, nonnegative, rows (hence columns) summing to 1: what every gossip analysis assumes.
void check(const Topology& topology, const Mixing& mixing) {
  for (std::size_t i = 0; i < topology.nodes; ++i) {
    double row = mixing.self[i];
    if (mixing.self[i] < -1e-12)
      throw std::logic_error("mixing matrix: negative diagonal at node " + std::to_string(i));
    for (std::size_t k = 0; k < topology.neighbors[i].size(); ++k) {
      const std::size_t j = topology.neighbors[i][k];
      const double w = mixing.neighbor[i][k];
      if (!(w > 0))
        throw std::logic_error("mixing matrix: weight on edge " + std::to_string(i) + "-" +
                               std::to_string(j) + " is not positive");
      if (weight(mixing, topology, j, i) != w)
        throw std::logic_error("mixing matrix: not symmetric at " + std::to_string(i) + ", " +
                               std::to_string(j));
      row += w;
    }
    if (std::abs(row - 1.0) > 1e-12)
      throw std::logic_error("mixing matrix: row " + std::to_string(i) + " sums to " + std::to_string(row));
  }
}

}  // namespace

Mixing make_mixing(const Topology& topology, const std::string& weights) {
  if (weights != "metropolis" && weights != "uniform")
    throw InputError("unknown mixing weights \"" + weights + "\" (expected \"metropolis\" or \"uniform\")");
  std::size_t max_degree = 0;
  for (std::size_t i = 0; i < topology.nodes; ++i) max_degree = std::max(max_degree, topology.degree(i));
  Mixing mixing;
  mixing.self.resize(topology.nodes);
  mixing.neighbor.resize(topology.nodes);
  for (std::size_t i = 0; i < topology.nodes; ++i) {
    double sum = 0;
    for (auto j : topology.neighbors[i]) {
      const std::size_t degree =
          weights == "uniform" ? max_degree : std::max(topology.degree(i), topology.degree(j));
      const double w = 1.0 / static_cast<double>(1 + degree);
      mixing.neighbor[i].push_back(w);
      sum += w;
    }
    mixing.self[i] = 1.0 - sum;
  }
  check(topology, mixing);
  return mixing;
}

namespace {

// W as a dense matrix.
Eigen::MatrixXd dense(const Topology& topology, const Mixing& mixing) {
  const auto n = static_cast<Eigen::Index>(topology.nodes);
  Eigen::MatrixXd w = Eigen::MatrixXd::Zero(n, n);
  for (std::size_t i = 0; i < topology.nodes; ++i) {
    w(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(i)) = mixing.self[i];
    for (std::size_t k = 0; k < topology.neighbors[i].size(); ++k)
      w(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(topology.neighbors[i][k])) =
          mixing.neighbor[i][k];
  }
  return w;
}

// y = (W - 11^T/n) x: W with its known top eigenpair (1, 1/sqrt(n)) deflated, applied sparsely.
Eigen::VectorXd apply_deflated(const Topology& topology, const Mixing& mixing, const Eigen::VectorXd& x) {
  Eigen::VectorXd y(x.size());
  for (std::size_t i = 0; i < topology.nodes; ++i) {
    double s = mixing.self[i] * x[static_cast<Eigen::Index>(i)];
    for (std::size_t k = 0; k < topology.neighbors[i].size(); ++k)
      s += mixing.neighbor[i][k] * x[static_cast<Eigen::Index>(topology.neighbors[i][k])];
    y[static_cast<Eigen::Index>(i)] = s;
  }
  y.array() -= x.mean();
  return y;
}

// Largest |eigenvalue| of the deflated W by Lanczos with full reorthogonalisation. Ritz values lie inside the
// spectrum, so this never overestimates |lambda_2|; it converges fast when lambda_2 is well separated
// (expanders, random graphs) and slowly for large rings and tori, whose top eigenvalues crowd together.
double lanczos_second_eigenvalue(const Topology& topology, const Mixing& mixing) {
  const auto n = static_cast<Eigen::Index>(topology.nodes);
  const Eigen::Index steps = std::min<Eigen::Index>(n - 1, 300);
  Eigen::MatrixXd basis(n, steps);
  std::vector<double> alpha, beta;
  Rng rng = Rng::stream(0, 0, Purpose::topology);  // a fixed start vector keeps the estimate reproducible
  Eigen::VectorXd q(n);
  for (Eigen::Index i = 0; i < n; ++i) q[i] = rng.normal();
  q.array() -= q.mean();
  q.normalize();
  for (Eigen::Index k = 0; k < steps; ++k) {
    basis.col(k) = q;
    Eigen::VectorXd v = apply_deflated(topology, mixing, q);
    alpha.push_back(q.dot(v));
    for (int pass = 0; pass < 2; ++pass) v -= basis.leftCols(k + 1) * (basis.leftCols(k + 1).transpose() * v);
    v.array() -= v.mean();
    const double b = v.norm();
    if (b < 1e-12 || k + 1 == steps) break;
    beta.push_back(b);
    q = v / b;
  }
  const auto m = static_cast<Eigen::Index>(alpha.size());
  Eigen::MatrixXd t = Eigen::MatrixXd::Zero(m, m);
  for (Eigen::Index k = 0; k < m; ++k) {
    t(k, k) = alpha[static_cast<std::size_t>(k)];
    if (k + 1 < m) t(k, k + 1) = t(k + 1, k) = beta[static_cast<std::size_t>(k)];
  }
  const Eigen::VectorXd ritz =
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(t, Eigen::EigenvaluesOnly).eigenvalues();
  return std::max(std::abs(ritz[0]), std::abs(ritz[m - 1]));
}

}  // namespace

double spectral_gap(const Topology& topology, const Mixing& mixing, GapMethod method) {
  if (topology.nodes <= 1) return 1.0;  // W = [1]: consensus is immediate
  if (method == GapMethod::automatic)
    method = topology.nodes > dense_gap_limit ? GapMethod::lanczos : GapMethod::dense;
  if (method == GapMethod::lanczos) return 1.0 - lanczos_second_eigenvalue(topology, mixing);
  // Exact: all eigenvalues of the dense W, ascending; the largest is 1 (connected graph), so lambda_2 in
  // magnitude is the larger of the second largest and the most negative.
  const Eigen::VectorXd lambda =
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(dense(topology, mixing), Eigen::EigenvaluesOnly)
          .eigenvalues();
  const Eigen::Index n = lambda.size();
  return 1.0 - std::max(std::abs(lambda[n - 2]), std::abs(lambda[0]));
}

}  // namespace sgdsim::topology
