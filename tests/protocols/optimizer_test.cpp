// The local optimizer: its updates against their formulas, per-node state, and its keys.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "../learning/helpers.hpp"
#include "algorithms/protocols/optimizer.hpp"

using namespace sgdsim;
using namespace sgdsim::protocols;

TEST_CASE("plain SGD is x - eta g, bit for bit") {
  Optimizer sgd({}, 1, 3);
  std::vector<float> x = {1.0f, -2.0f, 0.5f};
  const std::vector<float> g = {0.3f, 0.1f, -0.7f};
  std::vector<float> expected = x;
  for (std::size_t c = 0; c < 3; ++c) expected[c] += static_cast<float>(-0.05) * g[c];
  sgd.step(0, x, 0.05, g);
  CHECK(x == expected);
  CHECK(sgd.vector_passes() == 3);
}

TEST_CASE("heavy ball and Nesterov momentum follow PyTorch's SGD, one buffer per node") {
  const double eta = 0.1, mu = 0.9;
  OptimizerSettings heavy;
  heavy.momentum = mu;
  OptimizerSettings nesterov = heavy;
  nesterov.nesterov = true;
  Optimizer a(heavy, 2, 1), b(nesterov, 2, 1);
  std::vector<float> xa = {0.0f}, xb = {0.0f}, other = {0.0f};
  const std::vector<float> g = {1.0f};
  double v = 0, ya = 0, yb = 0;
  for (int t = 0; t < 5; ++t) {
    v = mu * v + 1.0;
    ya -= eta * v;
    yb -= eta * (1.0 + mu * v);
    a.step(0, xa, eta, g);
    b.step(0, xb, eta, g);
  }
  CHECK(xa[0] == Approx(ya).epsilon(1e-6));
  CHECK(xb[0] == Approx(yb).epsilon(1e-6));
  // Node 1's first step has an empty buffer: plain SGD.
  a.step(1, other, eta, g);
  CHECK(other[0] == Approx(-eta));
}

TEST_CASE("coupled weight decay goes through the momentum, decoupled shrinks the weights") {
  OptimizerSettings coupled;
  coupled.weight_decay = 0.5;
  OptimizerSettings decoupled = coupled;
  decoupled.decoupled = true;
  Optimizer c(coupled, 1, 1), d(decoupled, 1, 1);
  std::vector<float> xc = {2.0f}, xd = {2.0f};
  const std::vector<float> g = {1.0f};
  c.step(0, xc, 0.1, g);
  d.step(0, xd, 0.1, g);
  CHECK(xc[0] == Approx(2.0 - 0.1 * (1.0 + 0.5 * 2.0)));
  CHECK(xd[0] == Approx(2.0 * (1 - 0.1 * 0.5) - 0.1 * 1.0));
  coupled.momentum = 0.5;
  Optimizer cm(coupled, 1, 1);
  std::vector<float> x = {2.0f};
  cm.step(0, x, 0.1, g);  // v = 1 + 0.5·2 = 2
  const double x1 = 2.0 - 0.1 * 2.0;
  cm.step(0, x, 0.1, g);  // v = 0.5·2 + 1 + 0.5·x1
  CHECK(x[0] == Approx(x1 - 0.1 * (1.0 + 1.0 + 0.5 * x1)));
}

TEST_CASE("optimizer keys: defaults are plain SGD, Nesterov needs momentum") {
  using sgdsim::learning::testing::SpecHolder;
  SpecHolder empty("{}", "$.algorithm.optimizer", optimizer_keys());
  CHECK(read_optimizer(empty.spec).plain());
  SpecHolder bad(R"({"nesterov": true})", "$.algorithm.optimizer", optimizer_keys());
  CHECK_THROWS_WITH(read_optimizer(bad.spec), Catch::Contains("$.algorithm.optimizer.nesterov"));
  SpecHolder range(R"({"momentum": 1.5})", "$.algorithm.optimizer", optimizer_keys());
  CHECK_THROWS_WITH(read_optimizer(range.spec), Catch::Contains("$.algorithm.optimizer.momentum"));
}

TEST_CASE("coupled weight decay can be taken at another point than the weights it updates") {
  // CHOCO's consensus_first order: the decay belongs to the x the gradient was taken at, before consensus
  // moved it.
  OptimizerSettings coupled;
  coupled.weight_decay = 0.5;
  Optimizer o(coupled, 1, 1);
  std::vector<float> x = {3.0f};
  const std::vector<float> g = {1.0f}, before = {2.0f};
  o.step(0, x, 0.1, g, before);
  CHECK(x[0] == Approx(3.0 - 0.1 * (1.0 + 0.5 * 2.0)));
}

namespace {
// AdamW in double, as PyTorch writes it: one coordinate, constant gradient sequence `gs`.
double adamw_oracle(double x, const std::vector<double>& gs, double eta, double lambda, double b1, double b2,
                    double eps, bool correct) {
  double m = 0, v = 0;
  for (std::size_t t = 1; t <= gs.size(); ++t) {
    const double g = gs[t - 1];
    x *= 1 - eta * lambda;
    m = b1 * m + (1 - b1) * g;
    v = b2 * v + (1 - b2) * g * g;
    const double c1 = correct ? 1 - std::pow(b1, static_cast<double>(t)) : 1;
    const double c2 = correct ? 1 - std::pow(b2, static_cast<double>(t)) : 1;
    x -= eta / c1 * m / (std::sqrt(v) / std::sqrt(c2) + eps);
  }
  return x;
}
}  // namespace

TEST_CASE("AdamW follows PyTorch's update, with and without bias correction, one state per node") {
  const std::vector<double> gs = {0.5, -0.25, 1.0, 0.125};
  for (const bool correct : {true, false}) {
    OptimizerSettings adamw;
    adamw.adamw = true;
    adamw.decoupled = true;
    adamw.weight_decay = 0.1;
    adamw.beta1 = 0.8;
    adamw.beta2 = 0.9;
    adamw.epsilon = 1e-3;
    adamw.bias_correction = correct;
    Optimizer o(adamw, 2, 1);
    std::vector<float> x = {2.0f}, other = {2.0f};
    for (const double g : gs) {
      const std::vector<float> gf = {static_cast<float>(g)};
      o.step(0, x, 0.05, gf);
    }
    CHECK(x[0] == Approx(adamw_oracle(2.0, gs, 0.05, 0.1, 0.8, 0.9, 1e-3, correct)).epsilon(1e-6));
    // Node 1 starts from its own zero moments and step count.
    o.step(1, other, 0.05, std::vector<float>{0.5f});
    CHECK(other[0] == Approx(adamw_oracle(2.0, {0.5}, 0.05, 0.1, 0.8, 0.9, 1e-3, correct)).epsilon(1e-6));
  }
  // The first bias-corrected step moves every coordinate by about η whatever the gradient's scale.
  OptimizerSettings plain_adam;
  plain_adam.adamw = true;
  Optimizer a(plain_adam, 1, 2);
  std::vector<float> x = {0.0f, 0.0f};
  a.step(0, x, 0.01, std::vector<float>{1e-3f, -50.0f});
  CHECK(x[0] == Approx(-0.01).epsilon(1e-4));
  CHECK(x[1] == Approx(0.01).epsilon(1e-4));
  CHECK(a.vector_passes() == 7);
}

TEST_CASE("optimizer keys: adamw takes its own keys and refuses SGD's") {
  using sgdsim::learning::testing::SpecHolder;
  SpecHolder adamw(R"({"kind": "adamw", "beta2": 0.95, "weight_decay": 0.1})", "$.algorithm.optimizer",
                   optimizer_keys());
  const OptimizerSettings s = read_optimizer(adamw.spec);
  CHECK(s.adamw);
  CHECK(s.decoupled);
  CHECK(s.beta1 == 0.9);
  CHECK(s.beta2 == 0.95);
  CHECK(s.epsilon == 1e-8);
  CHECK(s.bias_correction);
  CHECK_FALSE(s.plain());
  SpecHolder mixed(R"({"kind": "adamw", "momentum": 0.9})", "$.algorithm.optimizer", optimizer_keys());
  CHECK_THROWS_WITH(read_optimizer(mixed.spec), Catch::Contains("momentum"));
  SpecHolder sgd_beta(R"({"beta1": 0.9})", "$.algorithm.optimizer", optimizer_keys());
  CHECK_THROWS_WITH(read_optimizer(sgd_beta.spec), Catch::Contains("beta1"));
  SpecHolder range(R"({"kind": "adamw", "beta2": 1})", "$.algorithm.optimizer", optimizer_keys());
  CHECK_THROWS_WITH(read_optimizer(range.spec), Catch::Contains("$.algorithm.optimizer.beta2"));
}
