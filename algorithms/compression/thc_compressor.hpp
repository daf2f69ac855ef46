#pragma once
// THC's quantizer as a compressor of one vector (issue 32 §4 names THC as `"compressor": {"kind": "thc"}`):
// the vector rotated by the randomized Hadamard transform of `rotation_seed`, quantized to b-bit indices in
// the frame of its own norm (thc.hpp), as one worker of THC's all-reduce would be with no other worker. THC's
// point is that the workers share one frame and sum indices without decoding, which needs the all-reduce: in
// a scenario, data_parallel's compressor "thc" runs the collective "thc" (scenarios/wiring/aliases.hpp), and
// no protocol takes it as the compressor of its own messages (capability `homomorphic`). This class is what
// `sgdsim compress`, the decoder tests, the fuzz target and the benchmark see.
// Wire: the norm N as fp32, then the D = padded length indices on b bits each, most significant first,
// padded with zero bits to a byte.
#include <cstdint>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "common/keys.hpp"

namespace sgdsim::compression {

// THC's keys (bits, overflow, rotation_seed, error_feedback), declared once for this kind and the collective
// "thc".
std::vector<keys::Key> thc_keys();

class ThcCompressor final : public Compressor {
 public:
  ThcCompressor(unsigned bits, double overflow, std::uint64_t rotation_seed)
      : bits_(bits), overflow_(overflow), seed_(rotation_seed) {}
  void encode_into(std::span<const float> values, Rng& rng, Bytes& out) const override;
  void decode_from(std::span<const std::uint8_t> message, std::size_t start,
                   std::span<float> out) const override;

 private:
  unsigned bits_;
  double overflow_;
  std::uint64_t seed_;
};

}  // namespace sgdsim::compression
