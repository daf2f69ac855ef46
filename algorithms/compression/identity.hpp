#pragma once
// `none`: the raw float32 values, little-endian, exactly 4·d bytes.
#include "algorithms/compression/float_format.hpp"

namespace sgdsim::compression {

class Identity final : public FloatFormat {
 public:
  std::string_view kind() const override { return "none"; }
  void round(std::span<float>) const override {}
  void encode_into(std::span<const float> values, Rng& rng, Bytes& out) const override;
  void decode_from(std::span<const std::uint8_t> message, std::size_t start,
                   std::span<float> out) const override;
};

}  // namespace sgdsim::compression
