#pragma once
// `fp16` and `bf16`: every coordinate as a 16-bit float, little-endian, exactly 2·d bytes. fp32 values are
// rounded to the nearest representable value, ties to even (IEEE 754's default rounding), as a GPU's
// conversion instructions do; decoding is exact. IEEE binary16 (fp16): 1 sign, 5 exponent, 10 fraction bits,
// largest finite 65504, subnormals down to 2^-24. bfloat16 (bf16): fp32's top 16 bits, 1 sign, 8 exponent, 7
// fraction bits, fp32's range.
#include <cstdint>
#include <span>
#include <string_view>

#include "algorithms/compression/float_format.hpp"

namespace sgdsim::compression {

// The conversions, bit-exact: Inf stays Inf, NaN stays NaN (quiet, sign and leading payload bits kept),
// finite values too large for fp16 round to ±Inf (from 65520 up: the tie with 65536 goes to the even
// neighbour), subnormals round like any other value, and signed zeros keep their sign.
std::uint16_t to_fp16(float value);
float from_fp16(std::uint16_t bits);
std::uint16_t to_bf16(float value);
float from_bf16(std::uint16_t bits);

class Float16 final : public FloatFormat {
 public:
  enum class Format { fp16, bf16 };
  explicit Float16(Format format) : format_(format) {}

  std::string_view kind() const override { return format_ == Format::fp16 ? "fp16" : "bf16"; }
  void round(std::span<float> values) const override;
  // NonFiniteInput when a value is NaN or infinite, or rounds to infinity (fp16 above 65504), naming it.
  // Decoding refuses the patterns of Inf and NaN (DecodeError): the encoder never sends them.
  void encode_into(std::span<const float> values, Rng& rng, Bytes& out) const override;
  void decode_from(std::span<const std::uint8_t> message, std::size_t start,
                   std::span<float> out) const override;

 private:
  std::uint16_t encode(float value) const {
    return format_ == Format::fp16 ? to_fp16(value) : to_bf16(value);
  }
  float decode(std::uint16_t bits) const {
    return format_ == Format::fp16 ? from_fp16(bits) : from_bf16(bits);
  }
  // The pattern of +Inf; every pattern at or above it (sign aside) is Inf or NaN.
  std::uint32_t infinity_bits() const { return format_ == Format::fp16 ? 0x7c00u : 0x7f80u; }
  Format format_;
};

}  // namespace sgdsim::compression
