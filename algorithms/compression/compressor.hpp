#pragma once
// A compressor turns a vector into the exact bytes that go on the wire and back. It knows nothing of
// networks: the simulator charges exactly encode()'s length, and receivers rebuild values from those bytes
// alone. Wire formats and options: docs/compression.md.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/compression/layout.hpp"
#include "common/rng.hpp"

namespace sgdsim {
class Spec;
namespace keys {
template <typename Factory>
class Registry;
}
}  // namespace sgdsim

namespace sgdsim::compression {

using Bytes = std::vector<std::uint8_t>;

class Compressor {
 public:
  virtual ~Compressor() = default;

  // Encodes `values` (length d) using `rng` for any randomness (stochastic rounding, random indices).
  // Deterministic given the Rng state. Throws InputError for vectors it cannot encode (non-finite values,
  // k > d).
  Bytes encode(std::span<const float> values, Rng& rng) const {
    Bytes out;
    encode_into(values, rng, out);
    return out;
  }
  // Rebuilds the d values from bytes produced by encode(). Throws DecodeError (naming the byte offset) on
  // corrupt, truncated or trailing bytes; never reads out of bounds.
  std::vector<float> decode(std::span<const std::uint8_t> bytes, std::size_t dimension) const {
    std::vector<float> out(dimension);
    decode_into(bytes, out);
    return out;
  }
  // Convenience: decode(encode(values)).
  std::vector<float> apply(std::span<const float> values, Rng& rng) const {
    return decode(encode(values, rng), values.size());
  }

  // Stateful kinds keep something per sender from one message to the next (e.g. low-rank PowerSGD's
  // warm-started factor). make_state() gives one sender's fresh state (nullptr for stateless kinds), and
  // encode_with() encodes with it, updating it. Decoding never depends on a state: receivers rebuild values
  // from the bytes alone, so a message means the same to every holder.
  class State {
   public:
    virtual ~State() = default;
  };
  virtual std::unique_ptr<State> make_state(std::size_t /*dimension*/) const { return nullptr; }
  virtual void encode_with(std::span<const float> values, Rng& rng, State* /*state*/, Bytes& out) const {
    encode_into(values, rng, out);
  }

  // The tensors of the vectors this compressor will encode (the model's parameter tensors), set once before
  // the first message; by default none are known and every vector is one tensor. Kinds that bucket or factor
  // per tensor read it; encoder and decoder must agree on it, as on every other setting.
  void use_layout(Layout layout) { layout_ = std::move(layout); }
  const Layout& layout() const { return layout_; }

  // The hot-path forms: the caller owns the buffers and reuses them from message to message.
  // Appends the encoding of `values` to `out` (whatever `out` already holds is kept).
  virtual void encode_into(std::span<const float> values, Rng& rng, Bytes& out) const = 0;
  // Decodes all of `bytes` into `out` (out.size() is the dimension).
  void decode_into(std::span<const std::uint8_t> bytes, std::span<float> out) const {
    decode_from(bytes, 0, out);
  }
  // Decodes message[start, end) into `out`; error offsets count from the start of `message`, so a composed
  // compressor can hand its tail to an inner decoder and still report where in the whole message it broke.
  virtual void decode_from(std::span<const std::uint8_t> message, std::size_t start,
                           std::span<float> out) const = 0;
  // The decoded d-vector in sparse form: ascending `positions` and their `values`, every other coordinate
  // +0. Kinds that select coordinates give it (so a receiver adds a message into a vector in O(k), not
  // O(d)); the others return false and the caller decodes densely. Same errors as decode_into().
  virtual bool decode_sparse(std::span<const std::uint8_t> /*bytes*/, std::size_t /*dimension*/,
                             std::vector<std::uint32_t>& /*positions*/,
                             std::vector<float>& /*values*/) const {
    return false;
  }

 private:
  Layout layout_;
};

// The compressor kinds. Each registers itself from its own file with its keys, a factory that reads them from
// a Spec (positioned on the compressor object, kind already read) and capabilities (the family declares the
// names it knows, with their help: sparsifier, codes_values, sign_votes).
using CompressorFactory = std::function<std::unique_ptr<Compressor>(Spec&)>;
keys::Registry<CompressorFactory>& compressors();

// Builds a compressor from a Spec of the compressor family (Spec::variant or Spec::of_family), validating
// every key, echoing defaults and calling spec.finish(). Unknown keys are InputErrors naming the JSON path.
std::unique_ptr<Compressor> make_compressor(Spec& spec);

// Convenience for code and tests: the same, from JSON text (errors name `origin`).
std::unique_ptr<Compressor> make_compressor(const std::string& json_text,
                                            const std::string& origin = "compressor");

}  // namespace sgdsim::compression
