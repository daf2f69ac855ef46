#include "algorithms/compression/float16.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <sstream>
#include <string>

#include "common/error.hpp"

namespace sgdsim::compression {

namespace {

// `kept` >> `shift`, rounded to nearest, ties to the even result.
std::uint32_t shift_to_nearest_even(std::uint32_t kept, unsigned shift) {
  const std::uint32_t rest = kept & ((1u << shift) - 1), half = 1u << (shift - 1);
  std::uint32_t result = kept >> shift;
  if (rest > half || (rest == half && (result & 1u))) ++result;
  return result;
}

}  // namespace

// The common cases — normal values, and the fp16 subnormals that small gradients often are — without a
// branch that depends on the value (after F. Giesen's conversions): a subnormal's fp16 units of 2^-24 are
// found by adding 0.5, whose fp32 units are 2^-24, so the FPU's round to nearest even does the rounding.
std::uint16_t to_fp16(float value) {
  std::uint32_t x = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = x & 0x80000000u;
  x ^= sign;
  std::uint32_t bits;
  // 65520 (0x477ff000) is halfway between 65504, the largest finite fp16 (odd fraction), and 2^16: up to Inf.
  if (x >= 0x477ff000u) {
    // NaN: quiet, with the leading payload bits that fit.
    bits = x > 0x7f800000u ? 0x7e00u | ((x >> 13) & 0x3ffu) : 0x7c00u;
  } else {
    const float shifted = std::bit_cast<float>(x) + 0.5f;
    const std::uint32_t subnormal = std::bit_cast<std::uint32_t>(shifted) - 0x3f000000u;
    // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits to nearest even; a carry steps
    // into the next exponent. (Wraps for subnormals, whose result is not taken.)
    const std::uint32_t normal = (x - (112u << 23) + 0xfffu + ((x >> 13) & 1u)) >> 13;
    bits = x < 0x38800000u ? subnormal : normal;  // below 2^-14: a multiple of 2^-24
  }
  return static_cast<std::uint16_t>(bits | (sign >> 16));
}

float from_fp16(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t shifted = static_cast<std::uint32_t>(bits & 0x7fffu) << 13;
  const std::uint32_t exponent = shifted & 0x0f800000u;
  const std::uint32_t normal = shifted + (112u << 23);  // exponent bias 15 -> 127
  // Zero or subnormal: fraction · 2^-24, exact in fp32: 2^-14 · (1 + fraction · 2^-10) − 2^-14.
  const float subnormal = std::bit_cast<float>(normal + (1u << 23)) - 0x1p-14f;
  std::uint32_t magnitude = exponent == 0 ? std::bit_cast<std::uint32_t>(subnormal) : normal;
  if (exponent == 0x0f800000u) magnitude += 112u << 23;  // Inf and NaN: the all-ones exponent
  return std::bit_cast<float>(sign | magnitude);
}

std::uint16_t to_bf16(float value) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(value);
  if ((x & 0x7fffffffu) > 0x7f800000u)  // NaN: quiet, with the leading payload bits that fit
    return static_cast<std::uint16_t>((x >> 16) | 0x0040u);
  // The same layout as fp32's top half: rounding the low half away rounds every finite value (subnormals
  // too), and a carry out of the largest finite values gives Inf, as it should.
  return static_cast<std::uint16_t>(shift_to_nearest_even(x, 16));
}

float from_bf16(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

namespace {

// The coding loops, one instance per format so that the conversion inlines. They keep the largest magnitude
// pattern instead of branching on each value; the rare bad message is searched again for its first bad value.
template <std::uint16_t (*to)(float)>
std::uint32_t encode_all(std::span<const float> values, std::uint8_t* out) {
  std::uint32_t largest = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::uint16_t bits = to(values[i]);
    largest = std::max<std::uint32_t>(largest, bits & 0x7fffu);
    out[2 * i] = static_cast<std::uint8_t>(bits & 0xffu);  // little-endian, whatever the host
    out[2 * i + 1] = static_cast<std::uint8_t>(bits >> 8);
  }
  return largest;
}

template <float (*from)(std::uint16_t)>
std::uint32_t decode_all(const std::uint8_t* in, std::span<float> out) {
  std::uint32_t largest = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto bits = static_cast<std::uint16_t>(in[2 * i] | (in[2 * i + 1] << 8));
    largest = std::max<std::uint32_t>(largest, bits & 0x7fffu);
    out[i] = from(bits);
  }
  return largest;
}

}  // namespace

void Float16::round(std::span<float> values) const {
  for (float& v : values) v = decode(encode(v));
}

void Float16::encode_into(std::span<const float> values, Rng& /*rng*/, Bytes& out) const {
  const std::size_t at = out.size();
  out.resize(at + 2 * values.size());
  const std::uint32_t largest = format_ == Format::fp16 ? encode_all<to_fp16>(values, out.data() + at)
                                                        : encode_all<to_bf16>(values, out.data() + at);
  if (largest < infinity_bits()) return;
  std::size_t i = 0;
  while ((encode(values[i]) & 0x7fffu) < infinity_bits()) ++i;
  out.resize(at);
  std::ostringstream what;
  what << kind() << ": value " << values[i] << " at index " << i
       << (!std::isfinite(values[i]) ? " is not finite"
           : format_ == Format::fp16 ? " is beyond fp16's largest finite value, 65504"
                                     : " is beyond bf16's largest finite value, about 3.39e38");
  throw NonFiniteInput(what.str());
}

void Float16::decode_from(std::span<const std::uint8_t> message, std::size_t start,
                          std::span<float> out) const {
  const std::size_t available = start <= message.size() ? message.size() - start : 0;
  const std::size_t expected = 2 * out.size();
  if (available != expected) {
    const std::size_t offset = std::min(message.size(), start + std::min(available, expected));
    throw DecodeError(std::string(kind()) + " decoder: expected " + std::to_string(expected) +
                      " bytes of 16-bit values, found " + std::to_string(available) +
                      (available < expected ? " (truncated message)" : " (trailing bytes)") +
                      " at byte offset " + std::to_string(offset) + " of " + std::to_string(message.size()));
  }
  const std::uint8_t* in = message.data() + start;
  const std::uint32_t largest =
      format_ == Format::fp16 ? decode_all<from_fp16>(in, out) : decode_all<from_bf16>(in, out);
  if (largest < infinity_bits()) return;
  // The encoder never sends Inf or NaN: such a pattern is damage.
  std::size_t i = 0;
  while (((in[2 * i] | (in[2 * i + 1] << 8)) & 0x7fff) < static_cast<int>(infinity_bits())) ++i;
  throw DecodeError(std::string(kind()) + " decoder: a non-finite value at byte offset " +
                    std::to_string(start + 2 * i) + " of " + std::to_string(message.size()));
}

}  // namespace sgdsim::compression
