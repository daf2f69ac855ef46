// The quantizers against the exact rounding distribution of docs/algorithms.md §1 and the bounds of §2.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>

#include "algorithms/compression/compressor.hpp"
#include "oracle.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;
using sgdsim::compression::make_compressor;

namespace {

struct Case {
  std::string json;
  std::vector<double> levels;
  bool max_norm;
  std::size_t bucket;  // 0: whole vector
};

std::vector<Case> cases() {
  return {
      {R"({"kind": "qsgd", "levels": 4, "bucket": 0})", paper_uniform_levels(4), false, 0},
      {R"({"kind": "qsgd", "levels": 3, "bucket": 7, "coding": "fixed"})", paper_uniform_levels(3), false, 7},
      {R"({"kind": "qsgdinf", "levels": 4, "bucket": 10})", paper_uniform_levels(4), true, 10},
      {R"({"kind": "nuqsgd", "levels": 3})", paper_exponential_levels(3, 0.5), false, 0},
      {R"({"kind": "nuqsgd", "levels": 2, "ratio": 0.3, "elias": "gamma"})", paper_exponential_levels(2, 0.3),
       false, 0},
      {R"({"kind": "qsgd", "table": "code", "bits": 3})", code_uniform_levels(3), false, 0},
      {R"({"kind": "qsgdinf", "table": "code", "bits": 2, "bucket": 9})", code_uniform_levels(2), true, 9},
      {R"({"kind": "nuqsgd", "table": "code", "bits": 3})", code_exponential_levels(3, 0.5), false, 0},
  };
}

// The exact distribution of every coordinate: per bucket the float32 norm the wire carries, then §1.
std::vector<Rounding> oracle(const std::vector<float>& v, const Case& c) {
  const std::size_t bucket = c.bucket == 0 ? v.size() : c.bucket;
  std::vector<Rounding> out;
  for (std::size_t begin = 0; begin < v.size(); begin += bucket) {
    std::vector<float> part(v.begin() + static_cast<std::ptrdiff_t>(begin),
                            v.begin() + static_cast<std::ptrdiff_t>(std::min(v.size(), begin + bucket)));
    const double norm = static_cast<float>(c.max_norm ? max_abs(part) : l2_norm(part));
    for (float x : part) out.push_back(round_oracle(x, norm, c.levels));
  }
  return out;
}

std::vector<float> mixed_vector() {
  std::vector<float> v = test_vector("gaussian", 24, 3);
  v[2] = 0.0f;
  v[5] = -v[4];
  v[11] = 1e-3f;
  return v;
}

}  // namespace

TEST_CASE("every quantizer picks one of the two neighbouring levels with the exact probabilities") {
  const std::vector<float> v = mixed_vector();
  const int trials = 20000;
  for (const Case& c : cases()) {
    INFO(c.json);
    auto q = make_compressor(c.json);
    const std::vector<Rounding> exact = oracle(v, c);
    std::vector<double> sum(v.size(), 0.0), sum_sq(v.size(), 0.0);
    Rng rng(42);
    for (int t = 0; t < trials; ++t) {
      const std::vector<float> out = q->apply(v, rng);
      for (std::size_t i = 0; i < v.size(); ++i) {
        const Rounding& r = exact[i];
        const double slack = 1e-6 * std::max(std::fabs(r.low), std::fabs(r.high)) + 1e-30;
        const bool on_level = std::fabs(out[i] - r.low) <= slack || std::fabs(out[i] - r.high) <= slack;
        if (!on_level)
          FAIL("coordinate " << i << " = " << out[i] << " is neither " << r.low << " nor " << r.high);
        const double e = out[i] - r.mean();
        sum[i] += out[i];
        sum_sq[i] += e * e;
      }
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
      INFO("coordinate " << i << " value " << v[i]);
      const Rounding& r = exact[i];
      const double scale = 1e-6 * std::max(std::fabs(r.low), std::fabs(r.high));
      // Unbiasedness: the mean lies within 4 standard errors of v (the oracle's mean is v unless clamped).
      CHECK(r.mean() == Approx(v[i]).margin(1e-6 * std::fabs(v[i]) + 1e-12));
      CHECK(std::fabs(sum[i] / trials - r.mean()) <= 4 * std::sqrt(r.variance() / trials) + scale);
      // Exact per-coordinate variance: the mean squared error against (1 - p) p (t_{j+1} - t_j)^2 norm^2.
      const double a = (r.low - r.mean()) * (r.low - r.mean()), b = (r.high - r.mean()) * (r.high - r.mean());
      const double sd = std::sqrt(r.p * (1 - r.p)) * std::fabs(b - a);
      CHECK(std::fabs(sum_sq[i] / trials - r.variance()) <=
            4.5 * sd / std::sqrt(trials) + 1e-6 * r.variance() + scale * scale + 1e-12);
    }
  }
}

TEST_CASE("the measured total error matches the exact expectation on large vectors") {
  for (const Case& c : cases()) {
    INFO(c.json);
    auto q = make_compressor(c.json);
    const std::vector<float> v = test_vector("heavy", 1000, 8);
    const std::vector<Rounding> exact = oracle(v, c);
    double expected = 0, variance_of_sum = 0;
    for (const Rounding& r : exact) {
      expected += r.variance();
      const double a = (r.low - r.mean()) * (r.low - r.mean()), b = (r.high - r.mean()) * (r.high - r.mean());
      variance_of_sum += r.p * (1 - r.p) * (b - a) * (b - a);
    }
    const int trials = 400;
    double measured = 0;
    Rng rng(9);
    for (int t = 0; t < trials; ++t) measured += squared_distance(q->apply(v, rng), v);
    measured /= trials;
    CHECK(std::fabs(measured - expected) <= 4.5 * std::sqrt(variance_of_sum / trials) + 1e-6 * expected);
  }
}

TEST_CASE("QSGD, QSGDinf and NUQSGD respect their variance and sparsity bounds") {
  const std::vector<std::string> shapes = {"gaussian", "uniform", "heavy", "sparse", "constant"};
  for (const std::string& shape : shapes) {
    for (std::size_t d : {16u, 100u, 1000u, 8192u}) {
      const std::vector<float> v = test_vector(shape, d, d + shape.size());
      const double norm2 = l2_norm(v) * l2_norm(v), dd = static_cast<double>(d);
      const float l2 = static_cast<float>(l2_norm(v)), linf = static_cast<float>(max_abs(v));
      for (int s : {1, 2, 4, 16}) {
        INFO(shape << " d=" << d << " s=" << s);
        double error = 0, nonzeros = 0;
        for (float x : v) {
          const Rounding r = round_oracle(x, l2, paper_uniform_levels(s));
          error += r.variance();
          nonzeros += (r.low != 0 ? 1 - r.p : 0) + (r.high != 0 ? r.p : 0);
        }
        CHECK(error <= std::min(dd / (4 * s * s), std::sqrt(dd) / s) * norm2 * (1 + 1e-6));
        CHECK(nonzeros <= s * (s + std::sqrt(dd)) * (1 + 1e-6));
        for (float x : v) {
          const Rounding r = round_oracle(x, linf, paper_uniform_levels(s));
          CHECK(r.variance() <= static_cast<double>(linf) * linf / (4.0 * s * s) * (1 + 1e-6));
        }
        error = 0, nonzeros = 0;
        for (float x : v) {
          const Rounding r = round_oracle(x, l2, paper_exponential_levels(s, 0.5));
          error += r.variance();
          nonzeros += (r.low != 0 ? 1 - r.p : 0) + (r.high != 0 ? r.p : 0);
        }
        CHECK(error <= (0.125 + std::min(dd * std::pow(4.0, -s) / 4, std::sqrt(dd) * std::pow(2.0, -s))) *
                           norm2 * (1 + 1e-6));
        CHECK(nonzeros <= std::min(dd, std::pow(4.0, s) + std::pow(2.0, s) * std::sqrt(dd)) * (1 + 1e-6));
      }
    }
  }
}

TEST_CASE("QSGD with one level outputs only 0 and ±norm, and NUQSGD attains its 1/8 worst case") {
  auto q1 = make_compressor(R"({"kind": "qsgd", "levels": 1})");
  const std::vector<float> v = test_vector("gaussian", 300, 1);
  const float norm = static_cast<float>(l2_norm(v));
  Rng rng(4);
  for (int t = 0; t < 50; ++t) {
    for (float x : q1->apply(v, rng)) REQUIRE((x == 0.0f || std::fabs(x) == norm));
  }
  // |v_1|/||v|| = 1/3 = (4/3)(1/4): variance (1/3)^2/8 times ||v||^2 = 9, i.e. exactly 1/8.
  auto nu = make_compressor(R"({"kind": "nuqsgd", "levels": 4})");
  const std::vector<float> w = {1.0f, std::sqrt(8.0f)};
  const double exact =
      round_oracle(1.0, static_cast<float>(l2_norm(w)), paper_exponential_levels(4, 0.5)).variance();
  CHECK(exact == Approx(0.125).epsilon(1e-5));
  double sum = 0;
  const int trials = 40000;
  for (int t = 0; t < trials; ++t) {
    const double e = nu->apply(w, rng)[0] - 1.0;
    sum += e * e;
  }
  // The squared error is 1/16 or 1/4 with probabilities 2/3 and 1/3: standard deviation sqrt(2/9) * 3/16.
  CHECK(std::fabs(sum / trials - 0.125) <= 4 * std::sqrt(2.0 / 9.0) * 3.0 / 16.0 / std::sqrt(trials));
}

TEST_CASE("QSGD's Elias code is shorter on average than the paper's bound at the sanity values") {
  struct Sanity {
    std::size_t d;
    int s;
    double bound;  // docs/algorithms.md §3
  };
  for (const Sanity& c : {Sanity{512, 1, 296}, Sanity{8192, 4, 4251}, Sanity{8192, 16, 13604}}) {
    const double d = static_cast<double>(c.d), s = c.s;
    const double bound =
        (3 + 1.5 * std::log2(2 * (s * s + d) / (s * (s + std::sqrt(d))))) * s * (s + std::sqrt(d)) + 32;
    CHECK(bound == Approx(c.bound).epsilon(2e-3));
    for (const char* elias : {"omega", "gamma"}) {
      INFO("d=" << c.d << " s=" << c.s << " " << elias);
      auto q = make_compressor(R"({"kind": "qsgd", "bucket": 0, "levels": )" + std::to_string(c.s) +
                               R"(, "elias": ")" + elias + "\"}");
      Rng rng(c.d + c.s);
      double bits = 0;
      const int trials = c.d > 1000 ? 20 : 200;
      for (int t = 0; t < trials; ++t) {
        const std::vector<float> v = test_vector("gaussian", c.d, 100 + t);
        bits += 8.0 * static_cast<double>(q->encode(v, rng).size());
      }
      CHECK(bits / trials < bound);
    }
  }
}
