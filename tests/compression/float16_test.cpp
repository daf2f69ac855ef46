// fp16 and bf16: the conversions against known bit patterns (IEEE 754 binary16 and bfloat16, round to
// nearest, ties to even), every 16-bit pattern, an independent nearest-value oracle, and the wire format.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/float16.hpp"
#include "common/error.hpp"
#include "common/keys.hpp"
#include "oracle.hpp"

using namespace sgdsim;
using namespace sgdsim::compression;

namespace {

float bits_to_float(std::uint32_t bits) {
  return std::bit_cast<float>(bits);
}

bool fp16_is_nan(std::uint16_t h) {
  return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
}
bool bf16_is_nan(std::uint16_t h) {
  return (h & 0x7f80u) == 0x7f80u && (h & 0x7fu) != 0;
}

// The oracle: the nearest of the finite non-negative values of a 16-bit format (ascending, from decoding
// every pattern), ties to the even pattern; beyond the largest, the rounding goes to infinity from half an
// ulp above it (the largest's ulp continued), as IEEE 754 says.
std::uint16_t nearest(double magnitude, const std::vector<double>& values, double overflow_at,
                      std::uint16_t infinity) {
  if (magnitude >= overflow_at) return infinity;
  const auto above = std::lower_bound(values.begin(), values.end(), magnitude);
  if (above == values.begin()) return 0;
  if (above == values.end()) return static_cast<std::uint16_t>(values.size() - 1);
  const auto hi = static_cast<std::uint16_t>(above - values.begin());
  const auto lo = static_cast<std::uint16_t>(hi - 1);
  const double below_gap = magnitude - values[lo], above_gap = values[hi] - magnitude;
  if (below_gap < above_gap) return lo;
  if (above_gap < below_gap) return hi;
  return (lo & 1u) == 0 ? lo : hi;
}

}  // namespace

TEST_CASE("fp16 conversions give the known bit patterns") {
  struct Case {
    float value;
    std::uint16_t bits;
  };
  const Case cases[] = {
      {1.0f, 0x3c00},
      {-2.0f, 0xc000},
      {0.5f, 0x3800},
      {0.1f, 0x2e66},
      {1.0f / 3, 0x3555},
      {3.14159265f, 0x4248},
      {65504.0f, 0x7bff},   // largest finite
      {65519.99f, 0x7bff},  // just below the tie with 2^16
      {65520.0f, 0x7c00},   // the tie: to the even neighbour, 2^16, which is infinity
      {1e10f, 0x7c00},      // overflow
      {-1e10f, 0xfc00},
      {std::ldexp(1.0f, -14), 0x0400},     // smallest normal
      {std::ldexp(1023.0f, -24), 0x03ff},  // largest subnormal
      {std::ldexp(1.0f, -24), 0x0001},     // smallest subnormal
      {std::ldexp(1.0f, -25), 0x0000},     // tie between 0 and 2^-24: to 0 (even)
      {std::nextafter(std::ldexp(1.0f, -25), 1.0f), 0x0001},
      {std::ldexp(3.0f, -25), 0x0002},         // tie between 1 and 2 units of 2^-24: to 2
      {std::ldexp(2047.0f, -25), 0x0400},      // tie between the largest subnormal and 2^-14: to 2^-14
      {1.0f + std::ldexp(1.0f, -11), 0x3c00},  // tie between 1 and 1 + 2^-10: to 1 (even)
      {1.0f + std::ldexp(3.0f, -11), 0x3c02},  // tie between 1 + 2^-10 (odd) and 1 + 2^-9: up
      {std::numeric_limits<float>::denorm_min(), 0x0000},
      {-std::numeric_limits<float>::denorm_min(), 0x8000},
      {0.0f, 0x0000},
      {-0.0f, 0x8000},
      {std::numeric_limits<float>::infinity(), 0x7c00},
      {-std::numeric_limits<float>::infinity(), 0xfc00},
  };
  for (const Case& c : cases) {
    INFO("value " << c.value << " expected 0x" << std::hex << c.bits);
    CHECK(to_fp16(c.value) == c.bits);
  }
  // NaN stays NaN, quiet, with its sign: a quiet NaN, a signalling one (payload only in the low bits, which
  // must not become infinity) and a negative one.
  CHECK(to_fp16(bits_to_float(0x7fc00000u)) == 0x7e00);
  CHECK(fp16_is_nan(to_fp16(bits_to_float(0x7f800001u))));
  CHECK(to_fp16(bits_to_float(0xffc00000u)) == 0xfe00);
  // Decoding.
  CHECK(from_fp16(0x0001) == std::ldexp(1.0f, -24));
  CHECK(from_fp16(0x03ff) == std::ldexp(1023.0f, -24));
  CHECK(from_fp16(0x7bff) == 65504.0f);
  CHECK(from_fp16(0x3555) == 0.333251953125f);
  CHECK(from_fp16(0x7c00) == std::numeric_limits<float>::infinity());
  CHECK(from_fp16(0xfc00) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(from_fp16(0x7e00)));
  CHECK(std::isnan(from_fp16(0x7c01)));
  CHECK(std::signbit(from_fp16(0x8000)));
  CHECK(from_fp16(0x8000) == 0.0f);
}

TEST_CASE("bf16 conversions give the known bit patterns") {
  struct Case {
    std::uint32_t value;
    std::uint16_t bits;
  };
  const Case cases[] = {
      {0x3f800000u, 0x3f80},                         // 1
      {0x40490fdbu, 0x4049},                         // pi: the low half is below the tie
      {0x3eaaaaabu, 0x3eab},                         // 1/3: above the tie
      {0x3f808000u, 0x3f80},                         // tie, even below
      {0x3f818000u, 0x3f82},                         // tie, odd below: up
      {0x3f808001u, 0x3f81},                         // just above the tie
      {0x7f7fffffu, 0x7f80},                         // the largest float rounds up to infinity
      {0x7f7f7fffu, 0x7f7f},                         // the largest finite bf16
      {0xff7fffffu, 0xff80}, {0x00000001u, 0x0000},  // fp32 subnormals round like any other value
      {0x00008000u, 0x0000},                         // tie, even below
      {0x00018000u, 0x0002},                         // tie, odd below: up
      {0x00008001u, 0x0001}, {0x80000000u, 0x8000},  // -0
      {0x7f800000u, 0x7f80},                         // Inf
      {0xff800000u, 0xff80},                         // -Inf
      {0x7fc00000u, 0x7fc0},                         // quiet NaN
      {0xffc00000u, 0xffc0},
  };
  for (const Case& c : cases) {
    INFO("value 0x" << std::hex << c.value << " expected 0x" << c.bits);
    CHECK(to_bf16(bits_to_float(c.value)) == c.bits);
  }
  CHECK(bf16_is_nan(to_bf16(bits_to_float(0x7f800001u))));  // a NaN whose payload bits would all be cut
  CHECK(std::bit_cast<std::uint32_t>(from_bf16(0x3f81)) == 0x3f810000u);
  CHECK(std::isnan(from_bf16(0x7fc0)));
  CHECK(from_bf16(0xff80) == -std::numeric_limits<float>::infinity());
}

TEST_CASE("every 16-bit pattern decodes and encodes back to itself (NaNs to a NaN)") {
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    INFO("pattern 0x" << std::hex << h);
    // The value by IEEE 754's definition: (−1)^s 2^(e − 15) (1 + f/1024), subnormals f · 2^-24.
    const int e = (h >> 10) & 0x1f, f = h & 0x3ff;
    const double magnitude = e == 0 ? std::ldexp(f, -24) : std::ldexp(1024 + f, e - 25);
    if (e != 31) CHECK(static_cast<double>(from_fp16(bits)) == ((h & 0x8000u) ? -magnitude : magnitude));
    if (e != 31) CHECK(std::signbit(from_fp16(bits)) == ((h & 0x8000u) != 0));
    if (fp16_is_nan(bits))
      CHECK(fp16_is_nan(to_fp16(from_fp16(bits))));
    else
      CHECK(to_fp16(from_fp16(bits)) == bits);
    if (bf16_is_nan(bits))
      CHECK(bf16_is_nan(to_bf16(from_bf16(bits))));
    else
      CHECK(to_bf16(from_bf16(bits)) == bits);
  }
}

TEST_CASE("fp32 to fp16 and bf16 is the nearest value, ties to even, against a search of every value") {
  std::vector<double> fp16_values, bf16_values;
  for (std::uint16_t h = 0; h < 0x7c00; ++h) fp16_values.push_back(from_fp16(h));
  for (std::uint16_t h = 0; h < 0x7f80; ++h) bf16_values.push_back(from_bf16(h));
  const double fp16_overflow = 65520.0, bf16_overflow = std::ldexp(0x1ff, 119);  // half an ulp above max
  auto check = [&](float x) {
    const double magnitude = std::fabs(static_cast<double>(x));
    const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    CHECK(to_fp16(x) == (sign | nearest(magnitude, fp16_values, fp16_overflow, 0x7c00)));
    CHECK(to_bf16(x) == (sign | nearest(magnitude, bf16_values, bf16_overflow, 0x7f80)));
  };
  // Every midpoint between neighbouring values (exact in fp32) and its two fp32 neighbours.
  for (std::size_t k = 0; k + 1 < fp16_values.size(); ++k) {
    const auto mid = static_cast<float>((fp16_values[k] + fp16_values[k + 1]) / 2);
    for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f), -mid}) check(x);
  }
  for (std::size_t k = 0; k + 1 < bf16_values.size(); k += 7) {
    const auto mid = static_cast<float>((bf16_values[k] + bf16_values[k + 1]) / 2);
    for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, 1e30f), -mid}) check(x);
  }
  // Random finite fp32 bit patterns.
  Rng rng(7);
  for (int k = 0; k < 200000; ++k) {
    const auto bits = static_cast<std::uint32_t>(rng.below(0xff800000u));
    const float x = bits_to_float(bits);
    if (std::isfinite(x)) check(x);
  }
}

TEST_CASE("fp16 and bf16 send exactly 2·d little-endian bytes and decode to the rounded values") {
  for (const char* kind : {"fp16", "bf16"}) {
    INFO(kind);
    auto c = make_compressor(std::string(R"({"kind": ")") + kind + "\"}");
    std::vector<float> v = testing::test_vector("gaussian", 1001, 3);
    v[5] = -0.0f;
    v[6] = std::ldexp(1.0f, -20);
    Rng rng(1);
    const Bytes bytes = c->encode(v, rng);
    REQUIRE(bytes.size() == 2 * v.size());
    const std::vector<float> back = c->decode(bytes, v.size());
    const bool fp16 = std::string(kind) == "fp16";
    // Unit roundoff: the relative error of a value in the normal range is at most 2^-11 (fp16), 2^-8 (bf16).
    const double u = fp16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
    for (std::size_t i = 0; i < v.size(); ++i) {
      INFO("index " << i);
      const std::uint16_t bits = fp16 ? to_fp16(v[i]) : to_bf16(v[i]);
      CHECK(bytes[2 * i] == (bits & 0xff));
      CHECK(bytes[2 * i + 1] == (bits >> 8));
      CHECK(std::bit_cast<std::uint32_t>(back[i]) ==
            std::bit_cast<std::uint32_t>(fp16 ? from_fp16(bits) : from_bf16(bits)));
      if (std::fabs(v[i]) >= std::ldexp(1.0, -14))
        CHECK(std::fabs(static_cast<double>(back[i]) - v[i]) <= u * std::fabs(v[i]));
    }
    // Rounding in place is decoding the encoding.
    std::vector<float> rounded = v;
    dynamic_cast<const FloatFormat&>(*c).round(rounded);
    CHECK(rounded == back);
  }
  auto fp16 = make_compressor(R"({"kind": "fp16"})");
  Rng rng(1);
  const Bytes one = fp16->encode(std::vector<float>{1.0f}, rng);
  CHECK(one == Bytes{0x00, 0x3c});
  CHECK(fp16->encode(std::vector<float>{}, rng).empty());
}

TEST_CASE("fp16 and bf16 refuse values they cannot carry, and malformed messages") {
  Rng rng(1);
  auto fp16 = make_compressor(R"({"kind": "fp16"})");
  auto bf16 = make_compressor(R"({"kind": "bf16"})");
  std::vector<float> v(10, 1.0f);
  v[7] = 70000.0f;
  CHECK_THROWS_AS(fp16->encode(v, rng), NonFiniteInput);
  CHECK_THROWS_WITH(fp16->encode(v, rng),
                    Catch::StartsWith("fp16") && Catch::Contains("index 7") && Catch::Contains("65504"));
  CHECK_NOTHROW(bf16->encode(v, rng));
  v[7] = std::numeric_limits<float>::max();
  CHECK_THROWS_AS(bf16->encode(v, rng), NonFiniteInput);
  v[7] = std::nanf("");
  CHECK_THROWS_WITH(bf16->encode(v, rng), Catch::Contains("index 7") && Catch::Contains("not finite"));
  v[7] = -std::numeric_limits<float>::infinity();
  CHECK_THROWS_AS(fp16->encode(v, rng), NonFiniteInput);

  const Bytes good = fp16->encode(std::vector<float>(4, 0.5f), rng);
  Bytes truncated(good.begin(), good.end() - 1), trailing = good;
  trailing.push_back(0);
  CHECK_THROWS_WITH(fp16->decode(truncated, 4),
                    Catch::Contains("truncated") && Catch::Contains("byte offset 7"));
  CHECK_THROWS_WITH(fp16->decode(trailing, 4),
                    Catch::Contains("trailing") && Catch::Contains("byte offset 8"));
  CHECK_THROWS_AS(bf16->decode(truncated, 4), DecodeError);
  Bytes infinite = good;
  infinite[5] = 0x7c;  // the third value's high byte: +Inf (low byte 0)
  infinite[4] = 0x00;
  CHECK_THROWS_WITH(fp16->decode(infinite, 4),
                    Catch::Contains("non-finite") && Catch::Contains("byte offset 4"));
  infinite[5] = 0xff;  // NaN, negative
  CHECK_THROWS_AS(fp16->decode(infinite, 4), DecodeError);
  CHECK_THROWS_AS(bf16->decode(Bytes{0x80, 0x7f}, 1), DecodeError);  // bf16 +Inf
}

TEST_CASE("the kinds that declare float_format are exactly those whose compressors are float formats") {
  std::size_t formats = 0;
  for (const keys::Kind* kind : compressors().kinds()) {
    for (const nlohmann::json& example : kind->examples) {
      INFO(example.dump());
      const auto compressor = make_compressor(example.dump());
      const auto* format = dynamic_cast<const FloatFormat*>(compressor.get());
      CHECK((format != nullptr) == kind->has("float_format"));
      if (format) {
        CHECK(format->kind() == kind->name);
        ++formats;
      }
    }
  }
  CHECK(formats >= 3);  // none, fp16, bf16
}
