#pragma once
// A compressor turns a vector into the exact bytes that go on the wire and back. It knows nothing of networks:
// the simulator charges exactly encode()'s length, and receivers rebuild values from those bytes alone.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/rng.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::compression {

using Bytes = std::vector<std::uint8_t>;

class Compressor {
 public:
  virtual ~Compressor() = default;
  // Encodes `values` (length d) using `rng` for any randomness (stochastic rounding, random indices).
  virtual Bytes encode(std::span<const float> values, Rng& rng) const = 0;
  // Rebuilds the d values from bytes produced by encode(). Throws DecodeError (naming the byte offset) on corrupt,
  // truncated or trailing bytes; never reads out of bounds.
  virtual std::vector<float> decode(std::span<const std::uint8_t> bytes, std::size_t dimension) const = 0;
  // Convenience: decode(encode(values)).
  std::vector<float> apply(std::span<const float> values, Rng& rng) const {
    return decode(encode(values, rng), values.size());
  }
  // True for `none`: the decoded vector equals the input exactly.
  virtual bool is_identity() const { return false; }
};

// Builds a compressor from its scenario object (e.g. {"kind": "qsgd", "levels": 16}), validating every key and
// echoing defaults. Unknown kinds and keys are InputErrors naming the JSON path.
std::unique_ptr<Compressor> make_compressor(Spec& spec);

}  // namespace sgdsim::compression
