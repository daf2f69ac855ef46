// Natural compression (Horváth et al. 2019) against its definition: 2^k <= |x| < 2^(k+1) becomes 2^(k+1)
// with probability |x|/2^k − 1, else 2^k (sign kept, zero exact); unbiased, with
// E||C(x) − x||² = Σ (2^(k+1) − |x_i|)(|x_i| − 2^k). With fewer exponent bits, values below the lowest power
// L of a bucket's range become L with probability |x|/L, else 0.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "algorithms/compression/compressor.hpp"
#include "common/error.hpp"
#include "oracle.hpp"
#include "two_point.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;
using sgdsim::compression::make_compressor;

namespace {

// `lowest`: the smallest power of the range (2^-127 with 8 exponent bits).
Rounding power_oracle(double x, double lowest) {
  const double a = std::fabs(x), sign = std::signbit(x) ? -1 : 1;
  if (a == 0) return {0, 0, 0};
  if (a < lowest) return {0, sign * lowest, a / lowest};
  const double low = std::exp2(std::floor(std::log2(a)));
  return {sign * low, sign * 2 * low, a / low - 1};
}

// The range of a bucket with `bits`-bit exponent codes: 2^b − 1 powers up to the smallest power >= max |x|,
// never below 2^-127.
double lowest_power(const std::vector<float>& bucket, int bits) {
  if (bits == 8) return std::exp2(-127);
  const double m = max_abs(bucket);
  const double top = std::max(-127.0, std::ceil(std::log2(m)));
  return std::exp2(std::max(-127.0, top - ((1 << bits) - 2)));
}

std::vector<Rounding> natural_oracle(const std::vector<float>& v, int bits, std::size_t bucket) {
  if (bits == 8 || bucket == 0) bucket = v.size();
  std::vector<Rounding> out;
  for (std::size_t begin = 0; begin < v.size(); begin += bucket) {
    const std::size_t end = std::min(v.size(), begin + bucket);
    const std::vector<float> part(v.begin() + static_cast<std::ptrdiff_t>(begin),
                                  v.begin() + static_cast<std::ptrdiff_t>(end));
    const double lowest = lowest_power(part, bits);
    for (float x : part) out.push_back(power_oracle(x, lowest));
  }
  return out;
}

std::vector<float> octaves_vector(std::size_t d, std::uint64_t seed) {
  std::vector<float> v = test_vector("gaussian", d, seed);
  Rng rng(seed);
  for (float& x : v) x = std::ldexp(x, static_cast<int>(rng.below(40)) - 30);
  return v;
}

}  // namespace

TEST_CASE("natural rounds to the two neighbouring powers of two, unbiased, with the closed-form error") {
  std::vector<float> v = test_vector("gaussian", 24, 9);
  v[1] = 0.0f;
  v[2] = -0.0f;
  v[3] = 0.75f;
  v[4] = -1.0f;       // a power of two stays itself
  v[5] = 0x1.0p127f;  // the largest power a float32 holds
  v[6] = 0x1.8p126f;
  v[7] = 0x1.0p-130f;   // subnormal, below 2^-127
  v[8] = -0x1.4p-127f;  // subnormal, inside the range
  v[9] = 1e-45f;        // the smallest subnormal
  v[10] = 0x1.fffffep0f;
  const std::vector<Rounding> exact = natural_oracle(v, 8, 0);
  double closed_form = 0, oracle_sum = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const double a = std::fabs(v[i]);
    if (a >= std::exp2(-127)) {
      const double low = std::exp2(std::floor(std::log2(a)));
      closed_form += (2 * low - a) * (a - low);
    } else {
      closed_form += (std::exp2(-127) - a) * a;
    }
    oracle_sum += exact[i].variance();
  }
  CHECK(oracle_sum == Approx(closed_form).epsilon(1e-12));
  auto q = make_compressor(R"({"kind": "natural"})");
  check_two_point(*q, v, exact, 20000, 3);
  // Total error on a vector spanning 40 octaves.
  const std::vector<float> w = octaves_vector(3000, 5);
  check_two_point(*q, w, natural_oracle(w, 8, 0), 300, 6, false);
  // Relative variance at most 1/8 (the paper's omega).
  double norm2 = 0, variance = 0;
  for (std::size_t i = 0; i < w.size(); ++i) norm2 += static_cast<double>(w[i]) * w[i];
  for (const Rounding& r : natural_oracle(w, 8, 0)) variance += r.variance();
  CHECK(variance <= norm2 / 8);
}

TEST_CASE("natural with fewer exponent bits rounds below each bucket's range to 0 or its lowest power") {
  const std::vector<float> v = octaves_vector(90, 12);
  for (int bits : {1, 3, 5}) {
    for (std::size_t bucket : {0u, 16u}) {
      INFO("exponent_bits " << bits << " bucket " << bucket);
      auto q = make_compressor(R"({"kind": "natural", "exponent_bits": )" + std::to_string(bits) +
                               R"(, "bucket": )" + std::to_string(bucket) + "}");
      check_two_point(*q, v, natural_oracle(v, bits, bucket), 6000, 40 + bits);
    }
  }
}

TEST_CASE("natural's wire: a sign bit and an exponent code per coordinate, exactly") {
  auto q = make_compressor(R"({"kind": "natural"})");
  for (std::size_t d : {1u, 7u, 8u, 1000u}) {
    const std::vector<float> v = octaves_vector(d, d);
    Rng rng(d);
    const compression::Bytes bytes = q->encode(v, rng);
    REQUIRE(bytes.size() == padded_bytes(9 * d));
    const std::vector<float> decoded = q->decode(bytes, d);
    for (std::size_t i = 0; i < d; ++i) {
      const auto sign = bits_at(bytes, 9 * i, 1), code = bits_at(bytes, 9 * i + 1, 8);
      const float expected =
          code == 0 ? 0.0f : static_cast<float>(std::exp2(static_cast<double>(code) - 128));
      CHECK(decoded[i] == (sign ? -expected : expected));
      if (code == 0) CHECK(sign == 0);
    }
  }
  // Zeros are exact and cost nothing but their 9 bits; powers of two are sent as themselves.
  const std::vector<float> exact = {0.0f, -0.0f, 1.0f, -0x1.0p-20f, 0x1.0p100f, 0x1.0p-127f, 0x1.0p127f};
  Rng rng(1);
  for (int t = 0; t < 20; ++t) {
    const std::vector<float> out = q->apply(exact, rng);
    for (std::size_t i = 0; i < exact.size(); ++i) CHECK(out[i] == exact[i]);
  }
  // Bounded exponents: an 8-bit header per bucket, then 1 + b bits per coordinate; an all-zero bucket is
  // its header alone.
  auto q3 = make_compressor(R"({"kind": "natural", "exponent_bits": 3, "bucket": 10})");
  std::vector<float> w = test_vector("gaussian", 35, 2);
  std::fill(w.begin() + 10, w.begin() + 20, 0.0f);
  const compression::Bytes bytes = q3->encode(w, rng);
  CHECK(bytes.size() == padded_bytes(4 * 8 + 25 * 4));
  CHECK(bits_at(bytes, 8 + 10 * 4, 8) == 0);  // the second bucket's header
  // The header is the smallest power at or above the bucket's max |x|.
  const std::vector<float> first(w.begin(), w.begin() + 10);
  CHECK(std::exp2(static_cast<double>(bits_at(bytes, 0, 8)) - 128) ==
        std::exp2(std::ceil(std::log2(max_abs(first)))));
}

TEST_CASE("natural refuses magnitudes with no float32 power of two above them") {
  auto q = make_compressor(R"({"kind": "natural"})");
  Rng rng(1);
  for (float bad : {0x1.000002p127f, std::numeric_limits<float>::max(),
                    -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    const std::vector<float> v = {1.0f, bad};
    CHECK_THROWS_AS(q->encode(v, rng), NonFiniteInput);
  }
}
