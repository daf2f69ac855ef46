#pragma once
// Compressed gossip with public copies (CHOCO-SGD's memory trick), shared by CHOCO-SGD and SPARQ-SGD.
// Per node: the model x_i, its public copy x̂_i (identical at every holder), and m_i = Σ_{j ∈ N_i ∪ {i}} w_ij
// x̂_j, so the state is three vectors whatever the degree. Copies only ever change by *decoded* messages.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "algorithms/protocols/encoders.hpp"
#include "algorithms/protocols/framing.hpp"
#include "algorithms/protocols/protocol.hpp"

namespace sgdsim::protocols {

class Gossip {
 public:
  struct Node {
    std::vector<float> x, copy, mixed;  // x_i, x̂_i, m_i
    NodeStats stats;
  };

  // Reads the keys compressed gossip shares: `weights`, `consensus_step` (γ), `compressor`, `memory` and
  // `verify_copies` (also keep every neighbour's copy explicitly and check at verify() that all holders agree
  // and that m_i equals Σ w_ij x̂_j; a test aid costing degree·d floats per node).
  Gossip(Spec& spec, const Environment& environment, Silence silence);
  // Their declarations, part of every gossip protocol's keys.
  static std::vector<keys::Key> keys();
  const Encoders& encoders() const { return encoders_; }

  Node& node(std::size_t i) { return nodes_[i]; }
  // Node i fires: q = C(target - x̂_i) is encoded, sent to every neighbour and applied to x̂_i and m_i.
  void fire(std::size_t i, std::span<const float> target, protocols::Port& port);
  // Node i stays silent this round.
  void stay_silent(std::size_t i, protocols::Port& port);
  // Receives one message (or silence) from every neighbour and applies it to m_i; then awaits own sends.
  // Messages travel through Framing, which repairs what a lossy network loses.
  void gather(std::size_t i, protocols::Port& port);
  // x_i += γ (m_i − x̂_i), i.e. γ Σ_j w_ij (x̂_j − x̂_i). Free: the caller charges consensus_charge() where
  // no shared scratch is live.
  void consensus(std::size_t i);
  const Charge& consensus_charge() const { return consensus_; }
  // Copy consistency check (when enabled). Throws std::logic_error on any disagreement. After failures a
  // holder's copy plus what the owner still owes it must equal the owner's copy (up to float rounding).
  void verify() const;
  std::size_t dimension() const { return dimension_; }
  const topology::Mixing& mixing() const { return mixing_; }

 private:
  // Applies q to the holder: x̂_i and m_i when it is the owner's own, m_i (and the held copy) otherwise.
  void apply(std::size_t holder, std::size_t owner, std::span<const float> q);
  // The same for the sparse q in sparse_.
  void apply_sparse(std::size_t holder, std::size_t owner);
  // The position of `owner` in holder's neighbour list.
  std::size_t neighbor_index(std::size_t holder, std::size_t owner) const;
  // Decodes a neighbour's update q and applies it to the holder.
  void receive_update(std::size_t holder, std::size_t owner, std::span<const std::uint8_t> bytes);

  const Environment& environment_;
  topology::Mixing mixing_;
  double gamma_;
  std::size_t dimension_;
  Encoders encoders_;
  std::vector<Node> nodes_;
  std::vector<float> difference_, q_;  // shared scratch, used between Port calls only (see LocalStep)
  SparseVector sparse_;                // shared scratch: a message in sparse form
  Charge consensus_;                   // x_i += γ (m_i − x̂_i): reads three vectors, writes one
  Charge own_update_;                  // a firing node's difference and own copy and m updates (9 d floats)
  Charge apply_;                       // one received update or repair applied to m (3 d floats)
  std::vector<Bytes> outbox_;          // per node: its last message, which sends still read after yielding
  Framing framing_;
  // The copy check: does holder i's copy of its k-th neighbour (plus what that owner owes it) equal the
  // owner's?
  bool holds_owner_copy(std::size_t holder, std::size_t k) const;
  std::vector<std::vector<std::vector<float>>>
      held_;  // verify_copies: held_[i][k] = copy of neighbours[i][k]
};

}  // namespace sgdsim::protocols
