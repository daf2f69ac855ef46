#include "algorithms/protocols/gossip.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "algorithms/protocols/local_step.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {
namespace {
// The silence signal is one zero byte. Every encoding of a non-empty vector carries at least a 32-bit value,
// so a one-byte message can only be this signal; encode() is checked to keep that true.
constexpr std::uint8_t silence_byte = 0;
}  // namespace

std::vector<keys::Key> Gossip::keys() {
  std::vector<keys::Key> keys = {topology::weights_key(),
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
      silence_(silence),
      dimension_(environment.model->dimension()),
      encoders_(spec, environment.topology->nodes, dimension_, environment.seed, environment.clock,
                environment.costs, model_layout(*environment.model)),
      difference_(dimension_),
      q_(dimension_),
      consensus_s_(environment.costs.vector_s(Work::mixing, 4.0 * static_cast<double>(dimension_))),
      outbox_(environment.topology->nodes) {
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
  owed_.resize(n);
  repairing_.resize(n);
  fired_.assign(n, 0);
  sent_q_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    owed_[i].resize(environment.topology->neighbors[i].size());
    repairing_[i].assign(environment.topology->neighbors[i].size(), 0);
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
  if (bytes.size() <= 1) throw std::logic_error("an encoded message of one byte would read as silence");
  if (sparse)
    apply_sparse(i, i);
  else
    apply(i, i, q_);
  // The difference (3 d) and the own copy and m updates (6 d), then the encoding: all before the first send.
  port.spend(Work::mixing, environment_.costs.vector_s(Work::mixing, 9.0 * static_cast<double>(dimension_)));
  port.spend(Work::encode, encoders_.encode_s());
  if (environment_.lossy) {
    sent_q_[i] = q_;
    fired_[i] = 1;
    send_framed(i, &bytes, port);
    return;
  }
  for (std::size_t j : environment_.topology->neighbors[i]) port.send(j, bytes);
}

// Messages on a network that can lose them: [flags][u32 length, encoded q (flags & 1)][d fp32 repair
// (flags & 2)], per neighbour. flags 0 is the 1-byte silence signal.
void Gossip::send_framed(std::size_t i, const Bytes* update, protocols::Port& port) {
  const auto& neighbors = environment_.topology->neighbors[i];
  for (std::size_t k = 0; k < neighbors.size(); ++k) {
    const bool repair = !owed_[i][k].empty();
    repairing_[i][k] = repair;
    if (!update && !repair) {
      if (silence_ == Silence::free)
        port.send_silence(neighbors[k]);
      else
        port.send(neighbors[k], protocols::Bytes{silence_byte});
      continue;
    }
    Bytes framed{static_cast<std::uint8_t>((update ? 1 : 0) | (repair ? 2 : 0))};
    if (update) {
      const auto length = static_cast<std::uint32_t>(update->size());
      for (int b = 0; b < 4; ++b) framed.push_back(static_cast<std::uint8_t>(length >> (8 * b)));
      framed.insert(framed.end(), update->begin(), update->end());
    }
    if (repair) {
      const auto* raw = reinterpret_cast<const std::uint8_t*>(owed_[i][k].data());
      framed.insert(framed.end(), raw, raw + owed_[i][k].size() * sizeof(float));
    }
    port.send(neighbors[k], std::move(framed));
  }
}

// After wait_sends(): what a neighbour did not receive is owed to it; a delivered repair settles the debt.
void Gossip::settle_deliveries(std::size_t i, const std::vector<std::size_t>& lost) {
  const auto& neighbors = environment_.topology->neighbors[i];
  for (std::size_t k = 0; k < neighbors.size(); ++k) {
    const bool delivered = std::find(lost.begin(), lost.end(), neighbors[k]) == lost.end();
    if (delivered) {
      if (repairing_[i][k]) owed_[i][k].clear();
    } else if (fired_[i]) {
      if (owed_[i][k].empty()) owed_[i][k].assign(dimension_, 0.0f);
      axpy(owed_[i][k], 1.0f, sent_q_[i]);
    }
    repairing_[i][k] = 0;
  }
  fired_[i] = 0;
}

void Gossip::stay_silent(std::size_t i, protocols::Port& port) {
  if (environment_.lossy) {
    send_framed(i, nullptr, port);
    return;
  }
  for (std::size_t j : environment_.topology->neighbors[i]) {
    if (silence_ == Silence::free)
      port.send_silence(j);
    else
      port.send(j, protocols::Bytes{silence_byte});
  }
}

void Gossip::gather(std::size_t i, protocols::Port& port) {
  if (environment_.lossy) {
    gather_framed(i, port);
    return;
  }
  for (std::size_t j : environment_.topology->neighbors[i]) {
    std::optional<protocols::Bytes> message = port.receive(j);
    if (!message || (message->size() == 1 && (*message)[0] == silence_byte)) continue;
    receive_update(i, j, *message);
    port.spend(Work::decode, encoders_.decode_s());
    port.spend(Work::mixing,
               environment_.costs.vector_s(Work::mixing, 3.0 * static_cast<double>(dimension_)));
  }
  port.wait_sends();
}

// A missing message leaves the holder's copy of the sender as it was (stale); its sender owes the update.
void Gossip::gather_framed(std::size_t i, protocols::Port& port) {
  const std::size_t d = dimension_;
  for (std::size_t j : environment_.topology->neighbors[i]) {
    protocols::Received received = port.receive_or_miss(j);
    if (received.status != protocols::Received::Status::message) continue;
    const Bytes& m = received.bytes;
    const std::uint8_t flags = m.empty() ? 0 : m[0];
    std::size_t at = 1;
    if (flags & 1) {
      if (m.size() < 5) throw std::logic_error("framed gossip message too short");
      std::uint32_t length = 0;
      for (int b = 0; b < 4; ++b) length |= static_cast<std::uint32_t>(m[1 + b]) << (8 * b);
      at = 5 + length;
      if (m.size() < at) throw std::logic_error("framed gossip message too short");
      receive_update(i, j, std::span<const std::uint8_t>(m).subspan(5, length));
      port.spend(Work::decode, encoders_.decode_s());
      port.spend(Work::mixing, environment_.costs.vector_s(Work::mixing, 3.0 * static_cast<double>(d)));
    }
    if (flags & 2) {
      if (m.size() != at + d * sizeof(float))
        throw std::logic_error("framed gossip repair has the wrong size");
      std::memcpy(q_.data(), m.data() + at, d * sizeof(float));
      apply(i, j, q_);
      port.spend(Work::mixing, environment_.costs.vector_s(Work::mixing, 3.0 * static_cast<double>(d)));
    }
  }
  settle_deliveries(i, port.wait_sends());
}

void Gossip::consensus(std::size_t i) {
  Node& node = nodes_[i];
  const auto g = static_cast<float>(gamma_);
  for (std::size_t c = 0; c < dimension_; ++c) node.x[c] += g * (node.mixed[c] - node.copy[c]);
}

bool Gossip::holds_owner_copy(std::size_t i, std::size_t k) const {
  const std::size_t owner = environment_.topology->neighbors[i][k];
  const auto& owner_neighbors = environment_.topology->neighbors[owner];
  const std::size_t back = static_cast<std::size_t>(
      std::find(owner_neighbors.begin(), owner_neighbors.end(), i) - owner_neighbors.begin());
  const std::vector<float>& owed = owed_[owner][back];
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
