#pragma once
// The sign family. Scaled sign (CHOCO's deep-learning compressor; EF-SignSGD's compressor): per bucket
// C(x) = (||x||_1 / n) sign(x). Plain sign (signSGD): C(x) = sign(x), no scale.
// Wire: per bucket a float32 scale (scaled only), then one bit per coordinate (1 = negative; 0 also for
// x = 0, which decodes as +scale, or +1).
#include "algorithms/compression/bit_stream.hpp"
#include "algorithms/compression/compressor.hpp"

namespace sgdsim::compression {

class ScaledSign final : public Compressor {
 public:
  // bucket 0: one scale for the whole vector. `scaled` false: plain signs, no scale on the wire (the bucket
  // is then irrelevant).
  explicit ScaledSign(std::size_t bucket = 0, bool scaled = true) : bucket_(bucket), scaled_(scaled) {}
  void encode_into(std::span<const float> values, Rng& rng, Bytes& out) const override;
  void decode_from(std::span<const std::uint8_t> message, std::size_t start,
                   std::span<float> out) const override;

 private:
  std::size_t bucket_;
  bool scaled_;
};

// The sign-bit stream the sign family shares: one bit per value (1 for a negative value other than -0),
// through the vector kernels. write_sign_bits needs writer.reserve(values.size()) first.
void write_sign_bits(std::span<const float> values, BitWriter& writer);
// Reads out.size() sign bits and writes (bit ? -magnitude : magnitude) to out; the caller checked
// in.has(out.size()).
void read_sign_bits(BitReader& in, float magnitude, std::span<float> out);

}  // namespace sgdsim::compression
