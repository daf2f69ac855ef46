#pragma once
// How a protocol's nodes put vectors on the wire. The compressor (codec) is stateless and shared; each node
// has its own memory (e.g. error feedback), its own compressor state (stateful kinds) and its own random
// stream. Every protocol that compresses goes through here, so each of them takes every compressor kind and
// every memory kind.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/learning/model.hpp"
#include "algorithms/protocols/memory.hpp"
#include "algorithms/protocols/port.hpp"
#include "algorithms/protocols/prices.hpp"
#include "algorithms/protocols/probe.hpp"
#include "common/keys.hpp"
#include "common/wall_clock.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::protocols {

// A compressor of d-vectors with the charges of one encode and one decode of a d-vector.
struct MessageCompressor {
  std::unique_ptr<compression::Compressor> compressor;
  Charge encode, decode;
  std::string kind;  // the compressor's kind name
};

// Reads `parent[key]`, a key declared as a compressor variant, and checks it against the model's dimension at
// once (e.g. top-k with k > d), so such a scenario fails validation instead of failing mid-run.
// `layout`: the tensors of the vectors it will compress (the compressor is told before the trial encoding).
// `prices` gets the prices of its configuration.
MessageCompressor make_message_compressor(Spec& parent, const std::string& key, std::size_t dimension,
                                          PriceTable& prices, const compression::Layout& layout = {});

// The model's parameter tensors as the compression layer sees them.
compression::Layout model_layout(const learning::Model& model);

// A decoded message in sparse form: ascending positions and their values, every other coordinate +0.
struct SparseVector {
  std::vector<std::uint32_t> positions;
  std::vector<float> values;
};

class Encoders {
 public:
  // The keys every compressing protocol declares: `compressor` (no default when `default_compressor` is
  // empty) and `memory` (default none).
  static std::vector<keys::Key> keys(const std::string& compressor_help,
                                     std::optional<nlohmann::json> default_compressor = std::nullopt);

  // Reads those keys from the protocol's Spec. `layout`: the tensors of the vectors (model_layout(); by
  // default none, each vector one tensor). `restores_average`: the protocol calls restore() on the average it
  // steps with, so it takes memories with the capability `estimates_average` (others refuse them).
  Encoders(Spec& spec, std::size_t nodes, std::size_t dimension, std::uint64_t seed, WallClock* clock,
           PriceTable& prices, const compression::Layout& layout = {}, bool restores_average = false);

  // Node i encodes `vector` (plus what its memory carries) into `bytes` (replaced) and decodes them into
  // `own` exactly as every receiver will; its memory learns what was sent and `stats` gains the relative
  // compression error ||C(v) − v||² / ||v||². With `sparse`, when the compressor has a sparse form
  // (Compressor::decode_sparse) `sparse` also holds the decoded message that way and encode() returns true;
  // the message is decoded once either way.
  bool encode(std::size_t i, std::span<const float> vector, Bytes& bytes, std::span<float> own,
              NodeStats& stats, SparseVector* sparse = nullptr);
  // encode() with the compressor's per-bucket scales agreed between the nodes first (TernGrad's scaler
  // sharing; the compressor is a Quantizer that shares_scales()): `agree` turns node i's scales of the vector
  // it compresses into the shared ones, which the message is encoded with.
  void encode_shared(std::size_t i, std::span<const float> vector, Bytes& bytes, std::span<float> own,
                     NodeStats& stats, const std::function<void(std::vector<float>& scales)>& agree);
  // Whether the compressor can encode with shared scales (encode_shared()).
  bool shares_scales() const;
  // Turns the average of the decoded vectors into what node i steps with (the memory's restore(): EF21's g);
  // charge restore_charge() with it.
  void restore(std::size_t i, std::span<float> average) { memory_->restore(i, average); }
  // Whether the memory has the capability `estimates_average` (restore() changes the average).
  bool restores() const { return restores_; }
  const Charge& restore_charge() const { return restore_; }
  // Decodes a received message into `out` (length d).
  void decode(std::span<const std::uint8_t> bytes, std::span<float> out) const;
  // The same message in sparse form when the compressor has one (Compressor::decode_sparse); else false.
  bool decode_sparse(std::span<const std::uint8_t> bytes, std::size_t dimension, SparseVector& out) const;

  const compression::Compressor& compressor() const { return *compressor_; }
  // The compressor's kind name (for checks of its capabilities).
  const std::string& kind() const { return kind_; }
  // The charge of one encode of a d-vector (the codec's, then the memory's arithmetic: one piece of work)
  // and of one decode. The sender's own decoding is free: a deployment has the decoded vector as a
  // by-product of encoding.
  std::span<const Charge> encode_charge() const { return encode_; }
  // The memory's part of it alone (for a collective that encodes chunks itself).
  std::span<const Charge> memory_charge() const { return std::span<const Charge>(encode_).subspan(1); }
  const Charge& decode_charge() const { return decode_; }
  // The momentum the memory applies itself (0 for most memories).
  double memory_momentum() const;
  // Node i's compression stream, for collectives that encode again (e.g. a parameter server's reply).
  Rng& stream(std::size_t i) { return nodes_[i].rng; }

 private:
  // The compression error's statistics and the memory's update, once node i's message is decoded.
  void account(std::size_t i, std::span<const float> message, std::span<const float> own, NodeStats& stats);
  struct Node {
    Rng rng;
    std::unique_ptr<compression::Compressor::State> state;
  };
  std::unique_ptr<compression::Compressor> compressor_;
  std::string kind_;
  std::unique_ptr<Memory> memory_;
  std::vector<Node> nodes_;
  WallClock* clock_;
  std::array<Charge, 2> encode_;
  Charge decode_, restore_;
  bool restores_ = false;
};

// A memory that applies momentum itself (DGC's momentum correction) beside the optimizer's momentum would
// apply momentum twice: an InputError naming both keys of the protocol's `spec`.
void refuse_momentum_twice(const Spec& spec, const Encoders& encoders, double optimizer_momentum);

}  // namespace sgdsim::protocols
