#pragma once
// Natural compression (Horváth et al. 2019): every value is rounded at random to one of the two powers of two
// around it, so that the expectation is the value itself: 2^k <= |x| < 2^(k+1) becomes 2^(k+1) with
// probability |x|/2^k - 1, else 2^k. Only the sign and the exponent travel.
//
// Exponent codes: code e >= 1 stands for 2^(e - 128). Per coordinate a sign bit (1 = negative) and a b-bit
// code c: c = 0 is an exact zero (sign 0), c >= 1 the exponent code e = offset + c.
// * b = 8 (default): offset 0, codes 1..255 = 2^-127 .. 2^127, no header: exactly 9 bits per coordinate.
// * b < 8: per bucket an 8-bit header h, the smallest code with 2^(h - 128) >= max |x_i| (0: the bucket is
// all
//   zeros and nothing else follows); then offset = h - (2^b - 1), so the codes reach 2^b - 1 exponents down
//   from the top (offset 0 when h <= 2^b - 1; codes above h are then corrupt).
// Values below the lowest power of the range L become L with probability |x|/L, else 0 (still unbiased).
// Magnitudes above 2^127 have no float32 power of two above them and are rejected as non-finite input.
#include <array>

#include "algorithms/compression/compressor.hpp"

namespace sgdsim::compression {

class Natural final : public Compressor {
 public:
  // exponent_bits b in [1, 8]; bucket (0: one bucket) only matters for b < 8.
  explicit Natural(int exponent_bits = 8, std::size_t bucket = 0);
  void encode_into(std::span<const float> values, Rng& rng, Bytes& out) const override;
  void decode_from(std::span<const std::uint8_t> message, std::size_t start,
                   std::span<float> out) const override;

 private:
  bool headers() const { return bits_ < 8; }

  unsigned bits_;
  std::size_t bucket_;
  std::array<float, 256> power_;  // power_[e] = 2^(e - 128) for e >= 1
};

}  // namespace sgdsim::compression
