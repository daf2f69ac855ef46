#include "algorithms/protocols/gossip.hpp"

#include <cmath>
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
  if (verify_copies) {
    held_.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      held_[i].assign(environment.topology->neighbors[i].size(), std::vector<float>(dimension_, 0.0f));
  }
}

void Gossip::apply(std::size_t holder, std::size_t owner, std::span<const float> q) {
  Node& node = nodes_[holder];
  const auto& neighbors = environment_.topology->neighbors[holder];
  if (holder == owner) {
    axpy(node.copy, 1.0f, q);
    axpy(node.mixed, static_cast<float>(mixing_.self[holder]), q);
    return;
  }
  std::size_t k = 0;
  while (neighbors[k] != owner) ++k;
  axpy(node.mixed, static_cast<float>(mixing_.neighbor[holder][k]), q);
  if (!held_.empty()) axpy(held_[holder][k], 1.0f, q);
}

void Gossip::fire(std::size_t i, std::span<const float> target, protocols::Port& port) {
  Node& node = nodes_[i];
  for (std::size_t c = 0; c < dimension_; ++c) difference_[c] = target[c] - node.copy[c];
  // The sender updates its own copy from its own decoded bytes, exactly as every receiver will.
  Bytes& bytes = outbox_[i];
  encoders_.encode(i, difference_, bytes, q_, node.stats);
  if (bytes.size() <= 1) throw std::logic_error("an encoded message of one byte would read as silence");
  apply(i, i, q_);
  // The difference (3 d) and the own copy and m updates (6 d), then the encoding: all before the first send.
  port.spend(Work::mixing, environment_.costs.vector_s(Work::mixing, 9.0 * static_cast<double>(dimension_)));
  port.spend(Work::encode, encoders_.encode_s());
  for (std::size_t j : environment_.topology->neighbors[i]) port.send(j, bytes);
}

void Gossip::stay_silent(std::size_t i, protocols::Port& port) {
  for (std::size_t j : environment_.topology->neighbors[i]) {
    if (silence_ == Silence::free)
      port.send_silence(j);
    else
      port.send(j, protocols::Bytes{silence_byte});
  }
}

void Gossip::gather(std::size_t i, protocols::Port& port) {
  for (std::size_t j : environment_.topology->neighbors[i]) {
    std::optional<protocols::Bytes> message = port.receive(j);
    if (!message || (message->size() == 1 && (*message)[0] == silence_byte)) continue;
    encoders_.decode(*message, q_);
    apply(i, j, q_);
    port.spend(Work::decode, encoders_.decode_s());
    port.spend(Work::mixing,
               environment_.costs.vector_s(Work::mixing, 3.0 * static_cast<double>(dimension_)));
  }
  port.wait_sends();
}

void Gossip::consensus(std::size_t i) {
  Node& node = nodes_[i];
  const auto g = static_cast<float>(gamma_);
  for (std::size_t c = 0; c < dimension_; ++c) node.x[c] += g * (node.mixed[c] - node.copy[c]);
}

void Gossip::verify() const {
  if (held_.empty()) return;
  const std::size_t n = nodes_.size();
  for (std::size_t i = 0; i < n; ++i) {
    const auto& neighbors = environment_.topology->neighbors[i];
    std::vector<double> mixed(dimension_);
    for (std::size_t c = 0; c < dimension_; ++c) mixed[c] = mixing_.self[i] * nodes_[i].copy[c];
    for (std::size_t k = 0; k < neighbors.size(); ++k) {
      if (held_[i][k] != nodes_[neighbors[k]].copy) {
        throw std::logic_error("copy of node " + std::to_string(neighbors[k]) + " held by node " +
                               std::to_string(i) + " differs from the owner's");
      }
      for (std::size_t c = 0; c < dimension_; ++c) mixed[c] += mixing_.neighbor[i][k] * held_[i][k][c];
    }
    for (std::size_t c = 0; c < dimension_; ++c) {
      const double scale = 1.0 + std::abs(mixed[c]);
      if (std::abs(mixed[c] - nodes_[i].mixed[c]) > 1e-4 * scale) {
        throw std::logic_error("m of node " + std::to_string(i) + " drifted from the weighted sum of copies");
      }
    }
  }
}

}  // namespace sgdsim::protocols
