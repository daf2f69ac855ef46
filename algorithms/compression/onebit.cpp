#include "algorithms/compression/onebit.hpp"

#include <algorithm>
#include <cmath>

#include "algorithms/compression/bit_stream.hpp"
#include "algorithms/compression/sign.hpp"
#include "algorithms/compression/simd.hpp"
#include "common/error.hpp"

namespace sgdsim::compression {

namespace {

struct Means {
  float positive = 0, negative = 0;
};

// The two group means of finite values, in double, in a fixed order (eight interleaved partial sums,
// combined pairwise) so that every machine gets the same bits; all-double lanes let the loop vectorise.
Means group_means(std::span<const float> part) {
  constexpr std::size_t lanes = 8;
  double positive[lanes] = {}, negative[lanes] = {}, negatives[lanes] = {};
  const std::size_t n = part.size();
  const float* v = part.data();
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    for (std::size_t l = 0; l < lanes; ++l) {
      const double x = v[i + l], low = std::min(x, 0.0);
      positive[l] += std::max(x, 0.0);
      negative[l] += low;
      negatives[l] += low < 0 ? 1.0 : 0.0;
    }
  }
  for (std::size_t l = 0; i < n; ++i, ++l) {
    const double x = v[i];
    positive[l] += x > 0 ? x : 0.0;
    negative[l] += x < 0 ? x : 0.0;
    negatives[l] += x < 0 ? 1.0 : 0.0;
  }
  const auto total = [](const double* s) {
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
  };
  const double count_negative = total(negatives), count_positive = static_cast<double>(n) - count_negative;
  Means means;
  if (count_positive > 0) means.positive = static_cast<float>(total(positive) / count_positive);
  if (count_negative > 0) means.negative = static_cast<float>(total(negative) / count_negative);
  return means;
}

}  // namespace

void OneBit::encode_into(std::span<const float> values, Rng& /*rng*/, Bytes& out) const {
  const std::size_t d = values.size(), bucket = bucket_ == 0 ? d : std::min(bucket_, d);
  BitWriter writer(out);
  for (std::size_t begin = 0; begin < d; begin += bucket) {
    const auto part = values.subspan(begin, std::min(bucket, d - begin));
    if (simd::any_non_finite(part.data(), part.size()))
      throw NonFiniteInput("onebit: cannot compress a vector with infinite or NaN values");
    const Means means = group_means(part);
    writer.reserve(64 + part.size());
    writer.write_float(means.positive);
    writer.write_float(means.negative);
    write_sign_bits(part, writer);
  }
  writer.finish();
}

void OneBit::decode_from(std::span<const std::uint8_t> message, std::size_t start,
                         std::span<float> out) const {
  const std::size_t d = out.size(), bucket = bucket_ == 0 ? d : std::min(bucket_, d);
  BitReader in(message, start, "onebit");
  for (std::size_t begin = 0; begin < d; begin += bucket) {
    const std::size_t n = std::min(bucket, d - begin);
    const float positive = in.read_float(), negative = in.read_float();
    if (!std::isfinite(positive) || !(positive >= 0.0f) || std::signbit(positive))
      in.fail("corrupt reconstruction value of the positive entries");
    if (!std::isfinite(negative) || !(negative <= 0.0f))
      in.fail("corrupt reconstruction value of the negative entries");
    if (!in.has(n)) in.fail("truncated message");
    const std::span<float> part = out.subspan(begin, n);
    read_sign_bits(in, 1.0f, part);
    for (float& x : part) x = x < 0.0f ? negative : positive;
  }
  in.expect_end();
}

}  // namespace sgdsim::compression
