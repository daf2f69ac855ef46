// Contraction factors of docs/algorithms.md §4: E||x - C(x)||^2 <= (1 - omega) ||x||^2.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "algorithms/compression/compressor.hpp"
#include "oracle.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;
using sgdsim::compression::make_compressor;

namespace {
double l1(const std::vector<float>& v) {
  double s = 0;
  for (float x : v) s += std::fabs(x);
  return s;
}
// The k largest magnitudes, as doubles.
std::vector<double> top_magnitudes(const std::vector<float>& v, std::size_t k) {
  std::vector<double> a;
  for (float x : v) a.push_back(std::fabs(x));
  std::sort(a.rbegin(), a.rend());
  a.resize(k);
  return a;
}
}  // namespace

TEST_CASE(
    "top-k keeps the k largest magnitudes: ||x - C(x)||^2 = ||x||^2 - sum of their squares <= (1 - "
    "k/d)||x||^2") {
  for (const std::string shape : {"gaussian", "heavy", "sparse", "constant"}) {
    const std::vector<float> x = test_vector(shape, 1000, 31);
    const double norm2 = l2_norm(x) * l2_norm(x);
    for (std::size_t k : {1u, 10u, 100u, 1000u}) {
      INFO(shape << " k=" << k);
      auto top = make_compressor(R"({"kind": "topk", "k": )" + std::to_string(k) + "}");
      Rng rng(1);
      const double error = squared_distance(top->apply(x, rng), x);
      double kept = 0;
      for (double a : top_magnitudes(x, k)) kept += a * a;
      CHECK(error == Approx(norm2 - kept).epsilon(1e-9).margin(1e-9 * norm2));
      CHECK(error <= (1 - static_cast<double>(k) / 1000) * norm2 * (1 + 1e-9));
    }
  }
}

TEST_CASE(
    "rand-k removes (1 - k/d) of the squared norm in expectation and picks every coordinate equally often") {
  const std::vector<float> x = test_vector("heavy", 200, 4);
  const double norm2 = l2_norm(x) * l2_norm(x);
  auto rand = make_compressor(R"({"kind": "randk", "k": 30})");
  Rng rng(6);
  const int trials = 20000;
  double error = 0;
  std::vector<int> picked(x.size(), 0);
  for (int t = 0; t < trials; ++t) {
    const std::vector<float> c = rand->apply(x, rng);
    error += squared_distance(c, x);
    for (std::size_t i = 0; i < x.size(); ++i) picked[i] += c[i] != 0.0f;
  }
  // Var of the error: sum_i x_i^4 q(1-q) plus covariances (negative for sampling without replacement): bound
  // it by the independent case.
  const double q = 30.0 / 200.0;
  double var = 0;
  for (float v : x) var += std::pow(static_cast<double>(v), 4) * q * (1 - q);
  CHECK(std::fabs(error / trials - (1 - q) * norm2) <= 4 * std::sqrt(var / trials));
  for (int count : picked) CHECK(std::fabs(count - q * trials) <= 4.5 * std::sqrt(trials * q * (1 - q)));
}

TEST_CASE("scaled sign and SignTopK satisfy their exact error identities") {
  for (const std::string shape : {"gaussian", "heavy", "sparse"}) {
    const std::vector<float> x = test_vector(shape, 999, 17);
    const double norm2 = l2_norm(x) * l2_norm(x), d = 999;
    Rng rng(1);
    auto sign = make_compressor(R"({"kind": "sign"})");
    // ||x - (||x||_1/d) sign(x)||^2 = ||x||^2 - ||x||_1^2 / d.
    CHECK(squared_distance(sign->apply(x, rng), x) == Approx(norm2 - l1(x) * l1(x) / d).epsilon(1e-5));
    for (std::size_t k : {1u, 50u, 999u}) {
      INFO(shape << " k=" << k);
      auto sign_top = make_compressor(R"({"kind": "compose", "stages": [{"kind": "topk", "k": )" +
                                      std::to_string(k) + R"(}, {"kind": "sign"}]})");
      double top_l1 = 0;
      for (double a : top_magnitudes(x, k)) top_l1 += a;
      const double exact = norm2 - top_l1 * top_l1 / static_cast<double>(k);
      CHECK(squared_distance(sign_top->apply(x, rng), x) == Approx(exact).epsilon(1e-5).margin(1e-6 * norm2));
    }
  }
}

TEST_CASE("QSGD with the contractive scale and QTopK contract by their omega") {
  const std::vector<float> x = test_vector("gaussian", 2000, 23);
  const double norm2 = l2_norm(x) * l2_norm(x);
  Rng rng(12);
  const int trials = 300;
  for (int s : {1, 4}) {
    // Q_s / tau with tau = 1 + min(d/s^2, sqrt(d)/s): omega = 1/tau.
    auto q = make_compressor(R"({"kind": "qsgd", "bucket": 0, "scale": "contractive", "levels": )" +
                             std::to_string(s) + "}");
    const double tau = 1 + std::min(2000.0 / (s * s), std::sqrt(2000.0) / s);
    double error = 0;
    for (int t = 0; t < trials; ++t) error += squared_distance(q->apply(x, rng), x);
    CHECK(error / trials <= (1 - 1 / tau) * norm2);
    for (std::size_t k : {20u, 200u}) {
      INFO("s=" << s << " k=" << k);
      auto qtopk = make_compressor(
          R"({"kind": "compose", "stages": [{"kind": "topk", "k": )" + std::to_string(k) +
          R"(}, {"kind": "qsgd", "scale": "contractive", "levels": )" + std::to_string(s) + "}]}");
      const double kk = static_cast<double>(k);
      const double omega = kk / (2000.0 * (1 + std::min(kk / (s * s), std::sqrt(kk) / s)));
      double e = 0;
      for (int t = 0; t < trials; ++t) e += squared_distance(qtopk->apply(x, rng), x);
      CHECK(e / trials <= (1 - omega) * norm2);
    }
  }
}
