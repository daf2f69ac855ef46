#include "algorithms/compression/natural.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "algorithms/compression/bit_stream.hpp"
#include "algorithms/compression/simd.hpp"
#include "common/error.hpp"

namespace sgdsim::compression {

namespace {

constexpr std::uint32_t top_code = 255;  // 2^127, the largest power of two a float32 holds

// The smallest exponent code e with 2^(e - 128) >= a, for 0 < a <= 2^127; at least 1.
std::uint32_t ceiling_code(float a) {
  if (a <= 0x1.0p-127f) return 1;
  const int k = std::ilogb(a);  // 2^k <= a < 2^(k+1), exact also for subnormals
  return static_cast<std::uint32_t>(k + 128 + (std::ldexp(1.0f, k) == a ? 0 : 1));
}

}  // namespace

Natural::Natural(int exponent_bits, std::size_t bucket)
    : bits_(static_cast<unsigned>(exponent_bits)), bucket_(bucket) {
  if (exponent_bits < 1 || exponent_bits > 8) throw std::invalid_argument("natural: exponent_bits in [1, 8]");
  power_[0] = 0.0f;
  for (int e = 1; e < 256; ++e) power_[static_cast<std::size_t>(e)] = std::ldexp(1.0f, e - 128);
}

void Natural::encode_into(std::span<const float> values, Rng& rng, Bytes& out) const {
  const std::size_t d = values.size();
  const std::size_t bucket = !headers() || bucket_ == 0 ? d : std::min(bucket_, d);
  const std::uint32_t span_codes = (1u << bits_) - 1;  // nonzero codes per coordinate
  BitWriter writer(out);
  for (std::size_t begin = 0; begin < d; begin += bucket) {
    const std::size_t n = std::min(bucket, d - begin);
    const float* v = values.data() + begin;
    const std::uint32_t max_bits = simd::max_abs_bits(v, n);
    if (max_bits >= 0x7F800000u)
      throw NonFiniteInput("natural: cannot compress a vector with infinite or NaN values");
    const float max_abs = std::bit_cast<float>(max_bits);
    if (max_abs > 0x1.0p127f)
      throw NonFiniteInput("natural: a magnitude above 2^127 has no float32 power of two above it");
    std::uint32_t high = top_code;
    writer.reserve(8 + n * (1 + bits_));
    if (headers()) {
      high = max_abs == 0.0f ? 0 : ceiling_code(max_abs);
      writer.write(high, 8);
      if (high == 0) continue;  // an all-zero bucket: the header says it all, and draws nothing
    }
    const std::uint32_t offset = high > span_codes ? high - span_codes : 0;
    const std::uint32_t low = std::max<std::uint32_t>(1, offset + 1);  // the lowest exponent code in range
    const double lowest = std::ldexp(1.0, static_cast<int>(low) - 128);
    BitCursor cursor = writer.cursor();
    std::uint64_t word = 0;
    for (std::size_t i = 0; i < n; ++i) {
      // One 64-bit draw per two coordinates: the even one takes the high half, the odd one the low half.
      if (i % 2 == 0) word = rng();
      const auto r = static_cast<std::uint32_t>(i % 2 == 0 ? word >> 32 : word);
      const std::uint32_t x = std::bit_cast<std::uint32_t>(v[i]);
      const std::uint32_t sign = x >> 31, magnitude = x & 0x7FFFFFFFu;
      std::uint32_t code;  // the exponent code, 0 for zero
      const std::uint32_t biased = magnitude >> 23;
      if (magnitude == 0) {
        code = 0;
      } else if (biased >= 1 && biased + 1 >= low) {
        // A normal float 2^k (1 + m/2^23) with 2^k in range: up with probability m/2^23, exactly.
        const std::uint32_t mantissa = magnitude & 0x7FFFFFu;
        code = biased + 1 + ((r >> 9) < mantissa ? 1 : 0);
      } else {
        // Below the range (or subnormal): between 0 and the lowest power when below it, else between the
        // subnormal's two powers; the probability in double, compared with 32 random bits (bias < 2^-32).
        const double a = std::fabs(static_cast<double>(v[i]));
        double floor_power, floor_code;
        if (a < lowest) {
          floor_power = 0;
          floor_code = 0;
        } else {
          const int k = std::ilogb(a);
          floor_power = std::ldexp(1.0, k);
          floor_code = k + 128;
        }
        const double p = a < lowest ? a / lowest : a / floor_power - 1;
        const bool up = static_cast<double>(r) < p * 4294967296.0;
        code = a < lowest ? (up ? low : 0) : static_cast<std::uint32_t>(floor_code) + (up ? 1 : 0);
      }
      const std::uint32_t c = code == 0 ? 0 : code - offset;
      cursor.write(((code == 0 ? 0 : sign) << bits_) | c, 1 + bits_);
    }
    writer.commit(cursor);
  }
  writer.finish();
}

void Natural::decode_from(std::span<const std::uint8_t> message, std::size_t start,
                          std::span<float> out) const {
  const std::size_t d = out.size();
  const std::size_t bucket = !headers() || bucket_ == 0 ? d : std::min(bucket_, d);
  const std::uint32_t span_codes = (1u << bits_) - 1;
  BitReader in(message, start, "natural");
  for (std::size_t begin = 0; begin < d; begin += bucket) {
    const std::size_t n = std::min(bucket, d - begin);
    std::uint32_t high = top_code;
    if (headers()) {
      high = static_cast<std::uint32_t>(in.read(8));
      if (high == 0) {
        std::fill_n(out.begin() + static_cast<std::ptrdiff_t>(begin), n, 0.0f);
        continue;
      }
    }
    const std::uint32_t offset = high > span_codes ? high - span_codes : 0;
    if (!in.has(n * (1 + bits_))) in.fail("truncated message");
    for (std::size_t i = 0; i < n; ++i) {
      const auto field = static_cast<std::uint32_t>(in.read(1 + bits_));
      const std::uint32_t sign = field >> bits_, c = field & span_codes;
      if (c == 0) {
        if (sign) in.fail("negative zero");
        out[begin + i] = 0.0f;
        continue;
      }
      const std::uint32_t code = offset + c;
      if (code > high) in.fail("exponent above the bucket's header");
      out[begin + i] = sign ? -power_[code] : power_[code];
    }
  }
  in.expect_end();
}

}  // namespace sgdsim::compression
