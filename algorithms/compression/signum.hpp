#pragma once
// Signum (Bernstein et al. 2018): each sender keeps a momentum m <- beta m + (1 - beta) x of the vectors it
// sends and sends sign(m) as plain signSGD signs (one bit per coordinate, decoding to +-1). The momentum is
// the sender's compressor state; receivers need nothing but the bytes.
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/sign.hpp"

namespace sgdsim::compression {

class Signum final : public Compressor {
 public:
  explicit Signum(float momentum) : momentum_(momentum) {}

  std::unique_ptr<State> make_state(std::size_t dimension) const override;
  void encode_with(std::span<const float> values, Rng& rng, State* state, Bytes& out) const override;
  // Without a state: a fresh momentum (m = (1 - beta) x), i.e. the first message of a sender.
  void encode_into(std::span<const float> values, Rng& rng, Bytes& out) const override;
  void decode_from(std::span<const std::uint8_t> message, std::size_t start,
                   std::span<float> out) const override {
    signs_.decode_from(message, start, out);
  }

 private:
  float momentum_;
  ScaledSign signs_{0, false};
};

}  // namespace sgdsim::compression
