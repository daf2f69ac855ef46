// TernGrad (Wen et al. 2017) against its definition: per bucket s = max |x_i| (as the float32 on the wire),
// x_i becomes s·sign(x_i) with probability |x_i|/s, else 0; unbiased, with E||C(x) − x||² = Σ (s|x_i| −
// x_i²).
#include <catch2/catch.hpp>

#include <cmath>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/quantizer.hpp"
#include "oracle.hpp"
#include "two_point.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;
using sgdsim::compression::make_compressor;

namespace {

std::vector<float> bucket_of(const std::vector<float>& v, std::size_t begin, std::size_t bucket) {
  return {v.begin() + static_cast<std::ptrdiff_t>(begin),
          v.begin() + static_cast<std::ptrdiff_t>(std::min(v.size(), begin + bucket))};
}

std::vector<Rounding> ternary_oracle(const std::vector<float>& v, std::size_t bucket) {
  if (bucket == 0) bucket = v.size();
  std::vector<Rounding> out;
  for (std::size_t begin = 0; begin < v.size(); begin += bucket) {
    const double s = static_cast<float>(max_abs(bucket_of(v, begin, bucket)));
    for (std::size_t i = begin; i < std::min(v.size(), begin + bucket); ++i) {
      const double x = v[i];
      out.push_back(s == 0 ? Rounding{0, 0, 0} : Rounding{0, x < 0 ? -s : s, std::fabs(x) / s});
    }
  }
  return out;
}

std::vector<float> mixed_vector() {
  std::vector<float> v = test_vector("gaussian", 30, 17);
  v[3] = 0.0f;
  v[8] = -v[7];
  v[12] = 1e-4f;
  v[20] = -0.0f;
  return v;
}

}  // namespace

TEST_CASE("terngrad is unbiased, ternary, and its error is exactly Σ (s|x_i| − x_i²) in expectation") {
  const std::vector<float> v = mixed_vector();
  for (std::size_t bucket : {0u, 7u, 30u}) {
    INFO("bucket " << bucket);
    auto q = make_compressor(R"({"kind": "terngrad", "bucket": )" + std::to_string(bucket) + "}");
    const std::vector<Rounding> exact = ternary_oracle(v, bucket);
    // The closed form of the paper's variance equals the oracle's sum of two-point variances.
    double closed_form = 0, oracle_sum = 0;
    const std::size_t b = bucket == 0 ? v.size() : bucket;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const double s = static_cast<float>(max_abs(bucket_of(v, i / b * b, b))), x = std::fabs(v[i]);
      closed_form += s * x - x * x;
      oracle_sum += exact[i].variance();
    }
    CHECK(oracle_sum == Approx(closed_form).epsilon(1e-12));
    check_two_point(*q, v, exact, 20000, 5 + bucket);
  }
  // A larger heavy-tailed vector, for the total error.
  const std::vector<float> w = test_vector("heavy", 2000, 4);
  auto q = make_compressor(R"({"kind": "terngrad", "bucket": 256})");
  check_two_point(*q, w, ternary_oracle(w, 256), 300, 77, false);
}

TEST_CASE("terngrad's wire is a float32 scale and 2-bit codes per bucket, exactly") {
  for (std::size_t d : {1u, 5u, 64u, 1001u}) {
    for (std::size_t bucket : {0u, 3u, 100u}) {
      INFO("d " << d << " bucket " << bucket);
      const std::vector<float> v = test_vector("gaussian", d, d + bucket);
      auto q = make_compressor(R"({"kind": "terngrad", "bucket": )" + std::to_string(bucket) + "}");
      Rng rng(d);
      const compression::Bytes bytes = q->encode(v, rng);
      const std::size_t b = bucket == 0 ? d : std::min(bucket, d), buckets = (d + b - 1) / b;
      REQUIRE(bytes.size() == padded_bytes(32 * buckets + 2 * d));
      const std::vector<float> decoded = q->decode(bytes, d);
      // By hand: scale, then code 0 = −s, 1 = 0, 2 = +s.
      std::size_t bit = 0;
      for (std::size_t begin = 0; begin < d; begin += b) {
        const float s = float_at(bytes, bit);
        bit += 32;
        CHECK(s == static_cast<float>(max_abs(bucket_of(v, begin, b))));
        for (std::size_t i = begin; i < std::min(d, begin + b); ++i, bit += 2) {
          const auto code = bits_at(bytes, bit, 2);
          REQUIRE(code <= 2);
          CHECK(decoded[i] == (code == 0 ? -s : code == 1 ? 0.0f : s));
          if (code != 1) CHECK(std::signbit(decoded[i]) == std::signbit(v[i]));
        }
      }
    }
  }
}

TEST_CASE("terngrad with a shared scale writes that scale and stays ternary and unbiased on it") {
  auto made = make_compressor(R"({"kind": "terngrad", "bucket": 10})");
  const auto& q = dynamic_cast<const compression::Quantizer&>(*made);
  REQUIRE(q.shares_scales());
  const std::vector<float> v = mixed_vector();  // 30 coordinates: 3 buckets
  std::vector<float> own;
  q.bucket_scales(v, own);
  REQUIRE(own.size() == 3);
  for (std::size_t b = 0; b < 3; ++b) CHECK(own[b] == static_cast<float>(max_abs(bucket_of(v, 10 * b, 10))));
  // Another worker's larger scales: each bucket is rounded on {−s, 0, +s} with the shared s.
  const std::vector<float> shared = {2 * own[0], own[1], 3.5f * own[2]};
  std::vector<double> mean(v.size(), 0.0);
  const int draws = 20000;
  Rng rng(3);
  for (int k = 0; k < draws; ++k) {
    compression::Bytes bytes;
    q.encode_with_scales(v, shared, rng, bytes);
    REQUIRE(bytes.size() == padded_bytes(32 * 3 + 2 * v.size()));
    const std::vector<float> decoded = q.decode(bytes, v.size());
    for (std::size_t b = 0; b < 3; ++b) REQUIRE(float_at(bytes, b * (32 + 20)) == shared[b]);
    for (std::size_t i = 0; i < v.size(); ++i) {
      const float s = shared[i / 10];
      REQUIRE((decoded[i] == 0.0f || decoded[i] == s || decoded[i] == -s));
      mean[i] += decoded[i];
    }
  }
  // Unbiased: the mean of the draws within 5 standard errors of x (variance s|x| − x²).
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double s = shared[i / 10], x = v[i];
    const double error = std::sqrt(std::max(s * std::fabs(x) - x * x, 0.0) / draws);
    CHECK(std::fabs(mean[i] / draws - x) <= 5 * error + 1e-7);
  }
  // A scale below its bucket's max |x| would round past ±s.
  compression::Bytes bytes;
  CHECK_THROWS(q.encode_with_scales(v, std::vector<float>{own[0] / 2, own[1], own[2]}, rng, bytes));
  CHECK_THROWS(q.encode_with_scales(v, std::vector<float>{own[0], own[1]}, rng, bytes));
}
