#pragma once
// 1-bit SGD (Seide et al. 2014): per bucket every coordinate is sent as its sign, and the receiver rebuilds
// it as the mean of the bucket's entries of that sign (the reconstruction that minimises the squared error
// for this split). Deterministic and biased: meant for error feedback (the "error_feedback" memory).
// Wire, per bucket of n coordinates: float32 p (mean of the entries >= 0, 0 if none), float32 q (mean of the
// entries < 0, 0 if none), then n bits (1 = negative, other than -0).
#include "algorithms/compression/compressor.hpp"

namespace sgdsim::compression {

class OneBit final : public Compressor {
 public:
  // bucket 0: one pair of reconstruction values for the whole vector.
  explicit OneBit(std::size_t bucket = 0) : bucket_(bucket) {}
  void encode_into(std::span<const float> values, Rng& rng, Bytes& out) const override;
  void decode_from(std::span<const std::uint8_t> message, std::size_t start,
                   std::span<float> out) const override;

 private:
  std::size_t bucket_;
};

}  // namespace sgdsim::compression
