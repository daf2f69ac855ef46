#include "algorithms/compression/sign.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include "algorithms/compression/norms.hpp"
#include "algorithms/compression/simd.hpp"
#include "common/error.hpp"

namespace sgdsim::compression {

namespace {
// Sign words between the vector kernels and the bit stream (1 KiB).
thread_local std::array<std::uint32_t, 256> word_buffer;
}  // namespace

void write_sign_bits(std::span<const float> part, BitWriter& writer) {
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

void read_sign_bits(BitReader& in, float magnitude, std::span<float> out) {
  const std::size_t n = out.size();
  std::size_t i = 0;
  while (i + 32 <= n) {
    const std::size_t words = std::min<std::size_t>((n - i) / 32, word_buffer.size());
    for (std::size_t j = 0; j < words; ++j) word_buffer[j] = static_cast<std::uint32_t>(in.read(32));
    // Branch-free: each sign bit goes straight into the float (random signs would defeat a branch
    // predictor).
    simd::expand_signs(word_buffer.data(), words, magnitude, out.data() + i);
    i += 32 * words;
  }
  for (; i < n; ++i) out[i] = in.read_bit() ? -magnitude : magnitude;
}

void ScaledSign::encode_into(std::span<const float> values, Rng& /*rng*/, Bytes& out) const {
  const std::size_t d = values.size();
  const std::size_t bucket = !scaled_ || bucket_ == 0 ? d : std::min(bucket_, d);
  BitWriter writer(out);
  for (std::size_t begin = 0; begin < d; begin += bucket) {
    const auto part = values.subspan(begin, std::min(bucket, d - begin));
    writer.reserve(32 + part.size());
    if (scaled_) {
      const BucketNorms norms = bucket_norms(part, NormsWanted::l1);
      if (norms.non_finite)
        throw NonFiniteInput("sign: cannot compress a vector with infinite or NaN values");
      writer.write_float(static_cast<float>(norms.sum_abs / static_cast<double>(part.size())));
    } else if (simd::any_non_finite(part.data(), part.size())) {
      throw NonFiniteInput("signsgd: cannot compress a vector with infinite or NaN values");
    }
    write_sign_bits(part, writer);
  }
  writer.finish();
}

void ScaledSign::decode_from(std::span<const std::uint8_t> message, std::size_t start,
                             std::span<float> out) const {
  const std::size_t d = out.size();
  const std::size_t bucket = !scaled_ || bucket_ == 0 ? d : std::min(bucket_, d);
  BitReader in(message, start, scaled_ ? "sign" : "signsgd");
  for (std::size_t begin = 0; begin < d; begin += bucket) {
    const std::size_t n = std::min(bucket, d - begin);
    float scale = 1.0f;
    if (scaled_) {
      scale = in.read_float();
      if (!(scale >= 0.0f) || std::signbit(scale) || !std::isfinite(scale)) in.fail("corrupt bucket scale");
    }
    if (!in.has(n)) in.fail("truncated message");
    read_sign_bits(in, scale, out.subspan(begin, n));
  }
  in.expect_end();
}

}  // namespace sgdsim::compression
