#pragma once
// Deep Gradient Compression's sparsifier (Lin et al. 2018): a threshold estimated by top-k on a random sample
// of the coordinates, then every coordinate at or above it is sent; when far more pass than the target, the
// exact top-k among those (the paper's hierarchical selection). The count varies, so it is on the wire.
// Momentum correction, clipping and momentum factor masking are the `dgc` memory's
// (algorithms/protocols/dgc_memory.cpp). Wire format: docs/compression.md.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "algorithms/compression/compressor.hpp"

namespace sgdsim::compression {

class Dgc final : public Compressor {
 public:
  // `fraction`: the target share of coordinates sent; `sample`: the share sampled for the threshold.
  Dgc(double fraction, double sample);

  void encode_into(std::span<const float> values, Rng& rng, Bytes& out) const override;
  void decode_from(std::span<const std::uint8_t> message, std::size_t start,
                   std::span<float> out) const override;

  // The sent positions for `values`, ascending.
  void select(std::span<const float> values, Rng& rng, std::vector<std::uint32_t>& positions) const;
  // The target count k = max(1, round(fraction · d)); at most ceil(1.3 k) are ever sent.
  std::size_t target(std::size_t dimension) const;
  std::size_t most(std::size_t dimension) const;
  std::size_t samples(std::size_t dimension) const;

 private:
  double fraction_, sample_;
};

}  // namespace sgdsim::compression
