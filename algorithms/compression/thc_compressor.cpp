#include "algorithms/compression/thc_compressor.hpp"

#include <cmath>
#include <vector>

#include "algorithms/compression/bit_stream.hpp"
#include "algorithms/compression/hadamard.hpp"
#include "algorithms/compression/thc.hpp"
#include "common/error.hpp"

namespace sgdsim::compression {

void ThcCompressor::encode_into(std::span<const float> values, Rng& rng, Bytes& out) const {
  double squares = 0;
  for (const float v : values) {
    if (!std::isfinite(v)) throw InputError("thc: cannot encode a value that is infinite or NaN");
    squares += static_cast<double>(v) * v;
  }
  const auto norm = static_cast<float>(std::sqrt(squares));
  const RandomizedHadamard rotation(values.size(), seed_);
  std::vector<float> rotated(rotation.padded());
  rotation.forward(values, rotated);
  std::vector<std::uint32_t> indices(rotation.padded());
  thc_quantize(rotated, thc_frame(norm, rotation.padded(), overflow_, bits_), rng, indices);
  BitWriter writer(out);
  writer.reserve(32 + indices.size() * bits_);
  writer.write_float(norm);
  for (const std::uint32_t k : indices) writer.write(k, bits_);
  writer.finish();
}

void ThcCompressor::decode_from(std::span<const std::uint8_t> message, std::size_t start,
                                std::span<float> out) const {
  const RandomizedHadamard rotation(out.size(), seed_);
  BitReader in(message, start, "thc");
  if (!in.has(32)) in.fail("truncated message");
  const float norm = in.read_float();
  if (!(norm >= 0.0f) || !std::isfinite(norm)) in.fail("a norm that is negative or not finite");
  if (!in.has(rotation.padded() * bits_)) in.fail("truncated message");
  std::vector<std::uint32_t> indices(rotation.padded());
  for (std::uint32_t& k : indices) k = static_cast<std::uint32_t>(in.read(bits_));
  in.expect_end();
  std::vector<float> mean(rotation.padded());
  thc_decode_sums(indices, 1, thc_frame(norm, rotation.padded(), overflow_, bits_), mean);
  rotation.inverse(mean, out);
}

}  // namespace sgdsim::compression
