#include "algorithms/protocols/gossip.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "algorithms/protocols/local_step.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

std::vector<keys::Key> Gossip::keys() {
  std::vector<keys::Key> keys = {topology::weights_key(), topology::graph_key(),
                                 keys::number("consensus_step", "γ, the consensus step size.").between(0, 1)};
  for (keys::Key& key : Encoders::keys("The compressor of the copy updates q."))
    keys.push_back(std::move(key));
  keys.push_back(keys::boolean("verify_copies",
                               "Also keep every neighbour's copy explicitly and check at the end that all "
                               "holders agree (a test aid costing degree · d floats per node).")
                     .fallback_to(false));
  return keys;
}

Gossip::Gossip(Spec& spec, const Environment& environment, Silence silence)
    : environment_(environment),
      mixing_(topology::make_mixing(*environment.topology, spec.string("weights"))),
      gamma_(spec.number("consensus_step")),
      dimension_(environment.model->dimension()),
      encoders_(spec, environment.topology->nodes, dimension_, environment.seed, environment.clock,
                *environment.prices, model_layout(*environment.model)),
      difference_(dimension_),
      q_(dimension_),
      consensus_{environment.prices->floats(Work::mixing), 4.0 * static_cast<double>(dimension_)},
      own_update_{environment.prices->floats(Work::mixing), 9.0 * static_cast<double>(dimension_)},
      apply_{environment.prices->floats(Work::mixing), 3.0 * static_cast<double>(dimension_)},
      outbox_(environment.topology->nodes),
      framing_(*environment.topology, dimension_, silence, environment.lossy) {
  const bool verify_copies = spec.boolean("verify_copies");
  const std::size_t n = environment.topology->nodes;
  nodes_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    Node& node = nodes_[i];
    node.x = initial_model(environment);
    // x̂ starts at zero everywhere (as in CHOCO-SGD), so m starts at zero too.
    node.copy.assign(dimension_, 0.0f);
    node.mixed.assign(dimension_, 0.0f);
  }
  if (verify_copies) {
    held_.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      held_[i].assign(environment.topology->neighbors[i].size(), std::vector<float>(dimension_, 0.0f));
  }
}

std::size_t Gossip::neighbor_index(std::size_t holder, std::size_t owner) const {
  const auto& neighbors = environment_.topology->neighbors[holder];
  std::size_t k = 0;
  while (neighbors[k] != owner) ++k;
  return k;
}

void Gossip::apply(std::size_t holder, std::size_t owner, std::span<const float> q) {
  Node& node = nodes_[holder];
  if (holder == owner) {
    axpy(node.copy, 1.0f, q);
    axpy(node.mixed, static_cast<float>(mixing_.self[holder]), q);
    return;
  }
  const std::size_t k = neighbor_index(holder, owner);
  axpy(node.mixed, static_cast<float>(mixing_.neighbor[holder][k]), q);
  if (!held_.empty()) axpy(held_[holder][k], 1.0f, q);
}

// A sparse q (sparse_) touches only its k coordinates. Skipping the others changes no bit: adding
// +0 leaves any float but -0 unchanged, and x̂_i, m_i and the held copies start at +0 and only ever gain sums,
// which are -0 only when both terms are.
void Gossip::apply_sparse(std::size_t holder, std::size_t owner) {
  Node& node = nodes_[holder];
  const std::vector<std::uint32_t>& positions = sparse_.positions;
  const std::vector<float>& values = sparse_.values;
  if (holder == owner) {
    const auto w = static_cast<float>(mixing_.self[holder]);
    for (std::size_t j = 0; j < positions.size(); ++j) {
      node.copy[positions[j]] += values[j];
      node.mixed[positions[j]] += w * values[j];
    }
    return;
  }
  const std::size_t k = neighbor_index(holder, owner);
  const auto w = static_cast<float>(mixing_.neighbor[holder][k]);
  for (std::size_t j = 0; j < positions.size(); ++j) node.mixed[positions[j]] += w * values[j];
  if (!held_.empty()) {
    float* held = held_[holder][k].data();
    for (std::size_t j = 0; j < positions.size(); ++j) held[positions[j]] += values[j];
  }
}

void Gossip::receive_update(std::size_t holder, std::size_t owner, std::span<const std::uint8_t> bytes) {
  if (encoders_.decode_sparse(bytes, dimension_, sparse_)) {
    apply_sparse(holder, owner);
    return;
  }
  encoders_.decode(bytes, q_);
  apply(holder, owner, q_);
}

void Gossip::fire(std::size_t i, std::span<const float> target, protocols::Port& port) {
  Node& node = nodes_[i];
  for (std::size_t c = 0; c < dimension_; ++c) difference_[c] = target[c] - node.copy[c];
  // The sender updates its own copy from its own decoded bytes, exactly as every receiver will.
  Bytes& bytes = outbox_[i];
  // q_ is the decoded message; a sparse one is applied in O(k) from its positions, with the same bits.
  const bool sparse = encoders_.encode(i, difference_, bytes, q_, node.stats, &sparse_);
  if (sparse)
    apply_sparse(i, i);
  else
    apply(i, i, q_);
  // The difference (3 d) and the own copy and m updates (6 d), then the encoding: all before the first send.
  port.charge(own_update_);
  port.charge(encoders_.encode_charge());
  framing_.send_update(i, bytes, q_, port);
}

void Gossip::stay_silent(std::size_t i, protocols::Port& port) {
  framing_.send_silence(i, port);
}

// A missing message leaves the holder's copy of the sender as it was (stale); its sender owes the update and
// repairs it with a later message (Framing).
void Gossip::gather(std::size_t i, protocols::Port& port) {
  for (std::size_t j : environment_.topology->neighbors[i]) {
    const Framing::Delivery delivery = framing_.receive(j, port);
    if (!delivery.update.empty()) {
      receive_update(i, j, delivery.update);
      port.charge(encoders_.decode_charge());
      port.charge(apply_);
    }
    if (!delivery.repair.empty()) {
      apply(i, j, delivery.repair);
      port.charge(apply_);
    }
  }
  framing_.wait_sends(i, port);
}

void Gossip::consensus(std::size_t i) {
  Node& node = nodes_[i];
  const auto g = static_cast<float>(gamma_);
  for (std::size_t c = 0; c < dimension_; ++c) node.x[c] += g * (node.mixed[c] - node.copy[c]);
}

bool Gossip::holds_owner_copy(std::size_t i, std::size_t k) const {
  const std::size_t owner = environment_.topology->neighbors[i][k];
  const std::vector<float>& owed = framing_.owed(owner, i);
  if (owed.empty()) {
    // Nothing owed: without losses the holder applied exactly the owner's updates, in the same order.
    if (held_[i][k] == nodes_[owner].copy) return true;
  }
  // After a repair (or with one outstanding) the sums differ by float rounding only.
  for (std::size_t c = 0; c < dimension_; ++c) {
    const double expected = nodes_[owner].copy[c];
    const double held = static_cast<double>(held_[i][k][c]) + (owed.empty() ? 0.0 : owed[c]);
    if (std::abs(held - expected) > 1e-5 * (1.0 + std::abs(expected))) return false;
  }
  return true;
}

void Gossip::verify() const {
  if (held_.empty()) return;
  const std::size_t n = nodes_.size();
  for (std::size_t i = 0; i < n; ++i) {
    const auto& neighbors = environment_.topology->neighbors[i];
    std::vector<double> mixed(dimension_);
    for (std::size_t c = 0; c < dimension_; ++c) mixed[c] = mixing_.self[i] * nodes_[i].copy[c];
    for (std::size_t k = 0; k < neighbors.size(); ++k) {
      if (!holds_owner_copy(i, k)) {
        throw std::logic_error("copy of node " + std::to_string(neighbors[k]) + " held by node " +
                               std::to_string(i) + " differs from the owner's");
      }
      for (std::size_t c = 0; c < dimension_; ++c) mixed[c] += mixing_.neighbor[i][k] * held_[i][k][c];
    }
    for (std::size_t c = 0; c < dimension_; ++c) {
      const double scale = 1.0 + std::abs(mixed[c]);
      if (std::abs(mixed[c] - nodes_[i].mixed[c]) > 1e-4 * scale) {
        throw std::logic_error("m of node " + std::to_string(i) +
                               " drifted from the weighted sum of copies (coordinate " + std::to_string(c) +
                               ": " + std::to_string(nodes_[i].mixed[c]) + " instead of " +
                               std::to_string(mixed[c]) + ")");
      }
    }
  }
}

}  // namespace sgdsim::protocols
