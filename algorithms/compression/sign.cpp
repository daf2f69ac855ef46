#include "algorithms/compression/sign.hpp"

#include <bit>
#include <cmath>

#include "algorithms/compression/bit_stream.hpp"
#include "algorithms/compression/norms.hpp"
#include "common/error.hpp"

namespace sgdsim::compression {

void ScaledSign::encode_into(std::span<const float> values, Rng& /*rng*/, Bytes& out) const {
  const std::size_t d = values.size(), bucket = bucket_ == 0 ? d : std::min(bucket_, d);
  BitWriter writer(out);
  for (std::size_t begin = 0; begin < d; begin += bucket) {
    const auto part = values.subspan(begin, std::min(bucket, d - begin));
    const BucketNorms norms = bucket_norms(part, NormsWanted::l1);
    if (norms.non_finite) throw InputError("sign: cannot compress a vector with infinite or NaN values");
    const auto scale = static_cast<float>(norms.sum_abs / static_cast<double>(part.size()));
    writer.reserve(32 + part.size());
    writer.write_float(scale);
    std::size_t i = 0;
    // 32 sign bits at a time.
    for (; i + 32 <= part.size(); i += 32) {
      std::uint32_t word = 0;
      for (int k = 0; k < 32; ++k)
        word = (word << 1) | (std::signbit(part[i + k]) && part[i + k] != 0.0f ? 1u : 0u);
      writer.write(word, 32);
    }
    for (; i < part.size(); ++i) writer.write_bit(std::signbit(part[i]) && part[i] != 0.0f);
  }
  writer.finish();
}

void ScaledSign::decode_from(std::span<const std::uint8_t> message, std::size_t start,
                             std::span<float> out) const {
  const std::size_t d = out.size(), bucket = bucket_ == 0 ? d : std::min(bucket_, d);
  BitReader in(message, start, "sign");
  for (std::size_t begin = 0; begin < d; begin += bucket) {
    const std::size_t n = std::min(bucket, d - begin);
    const float scale = in.read_float();
    if (!(scale >= 0.0f) || std::signbit(scale) || !std::isfinite(scale)) in.fail("corrupt bucket scale");
    if (!in.has(n)) in.fail("truncated message");
    const auto magnitude = std::bit_cast<std::uint32_t>(scale);
    std::size_t i = 0;
    for (; i + 32 <= n; i += 32) {
      const auto word = static_cast<std::uint32_t>(in.read(32));
      // Branch-free: the sign bit goes straight into the float (random signs would defeat a branch
      // predictor).
      for (int k = 0; k < 32; ++k)
        out[begin + i + k] = std::bit_cast<float>(magnitude | (((word >> (31 - k)) & 1u) << 31));
    }
    for (; i < n; ++i) out[begin + i] = in.read_bit() ? -scale : scale;
  }
  in.expect_end();
}

}  // namespace sgdsim::compression
