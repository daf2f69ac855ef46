#include "algorithms/compression/sign.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include "algorithms/compression/bit_stream.hpp"
#include "algorithms/compression/norms.hpp"
#include "algorithms/compression/simd.hpp"
#include "common/error.hpp"

namespace sgdsim::compression {

namespace {
// Sign words between the vector kernels and the bit stream (1 KiB).
thread_local std::array<std::uint32_t, 256> word_buffer;
}  // namespace

void ScaledSign::encode_into(std::span<const float> values, Rng& /*rng*/, Bytes& out) const {
  const std::size_t d = values.size(), bucket = bucket_ == 0 ? d : std::min(bucket_, d);
  BitWriter writer(out);
  for (std::size_t begin = 0; begin < d; begin += bucket) {
    const auto part = values.subspan(begin, std::min(bucket, d - begin));
    const BucketNorms norms = bucket_norms(part, NormsWanted::l1);
    if (norms.non_finite) throw NonFiniteInput("sign: cannot compress a vector with infinite or NaN values");
    const auto scale = static_cast<float>(norms.sum_abs / static_cast<double>(part.size()));
    writer.reserve(32 + part.size());
    writer.write_float(scale);
    // 32 sign bits per word, from the vector kernel in blocks that stay in the first-level cache.
    BitCursor cursor = writer.cursor();
    std::size_t i = 0;
    while (i + 32 <= part.size()) {
      const std::size_t words = std::min<std::size_t>((part.size() - i) / 32, word_buffer.size());
      simd::sign_words(part.data() + i, words, word_buffer.data());
      for (std::size_t j = 0; j < words; ++j) cursor.write(word_buffer[j], 32);
      i += 32 * words;
    }
    writer.commit(cursor);
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
    std::size_t i = 0;
    while (i + 32 <= n) {
      const std::size_t words = std::min<std::size_t>((n - i) / 32, word_buffer.size());
      for (std::size_t j = 0; j < words; ++j) word_buffer[j] = static_cast<std::uint32_t>(in.read(32));
      // Branch-free: each sign bit goes straight into the float (random signs would defeat a branch
      // predictor).
      simd::expand_signs(word_buffer.data(), words, scale, out.data() + begin + i);
      i += 32 * words;
    }
    for (; i < n; ++i) out[begin + i] = in.read_bit() ? -scale : scale;
  }
  in.expect_end();
}

}  // namespace sgdsim::compression
