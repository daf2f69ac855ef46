#include "algorithms/compression/onebit.hpp"

#include <algorithm>
#include <cmath>

#include "algorithms/compression/bit_stream.hpp"
#include "algorithms/compression/sign.hpp"
#include "common/error.hpp"

namespace sgdsim::compression {

namespace {

struct Means {
  float positive = 0, negative = 0;
  bool finite = true;
};

// The two group means in double, in a fixed order (four interleaved partial sums, combined pairwise) so
// every machine gets the same bits.
Means group_means(std::span<const float> part) {
  constexpr std::size_t lanes = 4;
  double positive[lanes] = {}, negative[lanes] = {};
  std::size_t negatives[lanes] = {};
  const std::size_t n = part.size();
  std::size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    for (std::size_t l = 0; l < lanes; ++l) {
      const double x = part[i + l];
      positive[l] += x > 0 ? x : 0.0;
      negative[l] += x < 0 ? x : 0.0;
      negatives[l] += x < 0;
    }
  }
  for (std::size_t l = 0; i < n; ++i, ++l) {
    const double x = part[i];
    positive[l] += x > 0 ? x : 0.0;
    negative[l] += x < 0 ? x : 0.0;
    negatives[l] += x < 0;
  }
  const double sum_positive = (positive[0] + positive[1]) + (positive[2] + positive[3]);
  const double sum_negative = (negative[0] + negative[1]) + (negative[2] + negative[3]);
  const std::size_t count_negative = (negatives[0] + negatives[1]) + (negatives[2] + negatives[3]);
  Means means;
  // NaN compares false everywhere above, so look at the values themselves for it.
  means.finite = std::isfinite(sum_positive) && std::isfinite(sum_negative) &&
                 std::none_of(part.begin(), part.end(), [](float x) { return std::isnan(x); });
  const std::size_t count_positive = n - count_negative;
  if (count_positive > 0)
    means.positive = static_cast<float>(sum_positive / static_cast<double>(count_positive));
  if (count_negative > 0)
    means.negative = static_cast<float>(sum_negative / static_cast<double>(count_negative));
  return means;
}

}  // namespace

void OneBit::encode_into(std::span<const float> values, Rng& /*rng*/, Bytes& out) const {
  const std::size_t d = values.size(), bucket = bucket_ == 0 ? d : std::min(bucket_, d);
  BitWriter writer(out);
  for (std::size_t begin = 0; begin < d; begin += bucket) {
    const auto part = values.subspan(begin, std::min(bucket, d - begin));
    const Means means = group_means(part);
    if (!means.finite) throw NonFiniteInput("onebit: cannot compress a vector with infinite or NaN values");
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
