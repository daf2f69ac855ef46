#pragma once
// Scaled sign (CHOCO's deep-learning compressor): per bucket C(x) = (||x||_1 / n) sign(x).
// Wire: per bucket a float32 scale, then one bit per coordinate (1 = negative; 0 also for x = 0).
#include "algorithms/compression/compressor.hpp"

namespace sgdsim::compression {

class ScaledSign final : public Compressor {
 public:
  // bucket 0: one scale for the whole vector.
  explicit ScaledSign(std::size_t bucket = 0) : bucket_(bucket) {}
  void encode_into(std::span<const float> values, Rng& rng, Bytes& out) const override;
  void decode_from(std::span<const std::uint8_t> message, std::size_t start,
                   std::span<float> out) const override;

 private:
  std::size_t bucket_;
};

}  // namespace sgdsim::compression
