#include "algorithms/protocols/framing.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "algorithms/protocols/local_step.hpp"

namespace sgdsim::protocols {
namespace {
// The silence signal is one zero byte. Every encoding of a non-empty vector carries at least a 32-bit value,
// so a one-byte message can only be this signal (send_update() checks it).
constexpr std::uint8_t silence_byte = 0;
constexpr std::uint8_t has_update = 1, has_repair = 2;
}  // namespace

Framing::Framing(const topology::Topology& topology, std::size_t dimension, Silence silence, bool lossy)
    : topology_(topology), dimension_(dimension), silence_(silence), lossy_(lossy) {
  if (!lossy) return;
  const std::size_t n = topology.nodes;
  repair_.resize(dimension);
  owed_.resize(n);
  repairing_.resize(n);
  fired_.assign(n, 0);
  sent_q_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    owed_[i].resize(topology.neighbors[i].size());
    repairing_[i].assign(topology.neighbors[i].size(), 0);
  }
}

void Framing::send_update(std::size_t i, const Bytes& bytes, std::span<const float> q, Port& port) {
  if (bytes.size() <= 1) throw std::logic_error("an encoded update of one byte would read as silence");
  if (!lossy_) {
    for (std::size_t j : topology_.neighbors[i]) port.send(j, bytes);
    return;
  }
  sent_q_[i].assign(q.begin(), q.end());
  fired_[i] = 1;
  send_framed(i, &bytes, port);
}

void Framing::send_silence(std::size_t i, Port& port) {
  if (lossy_) {
    send_framed(i, nullptr, port);
    return;
  }
  for (std::size_t j : topology_.neighbors[i]) {
    if (silence_ == Silence::free)
      port.send_silence(j);
    else
      port.send(j, Bytes{silence_byte});
  }
}

void Framing::send_framed(std::size_t i, const Bytes* update, Port& port) {
  const auto& neighbors = topology_.neighbors[i];
  for (std::size_t k = 0; k < neighbors.size(); ++k) {
    const std::vector<float>& owed = owed_[i][k];
    const bool repair = !owed.empty();
    repairing_[i][k] = repair;
    if (!update && !repair) {
      if (silence_ == Silence::free)
        port.send_silence(neighbors[k]);
      else
        port.send(neighbors[k], Bytes{silence_byte});
      continue;
    }
    Bytes framed{static_cast<std::uint8_t>((update ? has_update : 0) | (repair ? has_repair : 0))};
    if (update) {
      const auto length = static_cast<std::uint32_t>(update->size());
      for (int b = 0; b < 4; ++b) framed.push_back(static_cast<std::uint8_t>(length >> (8 * b)));
      framed.insert(framed.end(), update->begin(), update->end());
    }
    if (repair) {
      const auto* raw = reinterpret_cast<const std::uint8_t*>(owed.data());
      framed.insert(framed.end(), raw, raw + owed.size() * sizeof(float));
    }
    port.send(neighbors[k], std::move(framed));
  }
}

Framing::Delivery Framing::receive(std::size_t from, Port& port) {
  Received received = port.receive_or_miss(from);
  if (received.status != Received::Status::message) return {};
  message_ = std::move(received.bytes);
  const Bytes& m = message_;
  if (!lossy_) {
    if (m.size() == 1 && m[0] == silence_byte) return {};
    return {m, {}};
  }
  Delivery delivery;
  const std::uint8_t flags = m.empty() ? 0 : m[0];
  std::size_t at = 1;
  if (flags & has_update) {
    if (m.size() < 5) throw std::logic_error("framed gossip message too short");
    std::uint32_t length = 0;
    for (int b = 0; b < 4; ++b) length |= static_cast<std::uint32_t>(m[1 + b]) << (8 * b);
    at = 5 + length;
    if (m.size() < at) throw std::logic_error("framed gossip message too short");
    delivery.update = std::span<const std::uint8_t>(m).subspan(5, length);
  }
  if (flags & has_repair) {
    if (m.size() != at + dimension_ * sizeof(float))
      throw std::logic_error("framed gossip repair has the wrong size");
    std::memcpy(repair_.data(), m.data() + at, dimension_ * sizeof(float));
    delivery.repair = repair_;
  }
  return delivery;
}

void Framing::wait_sends(std::size_t i, Port& port) {
  const std::vector<std::size_t> lost = port.wait_sends();
  if (!lossy_) return;
  const auto& neighbors = topology_.neighbors[i];
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

const std::vector<float>& Framing::owed(std::size_t owner, std::size_t holder) const {
  static const std::vector<float> nothing;
  if (!lossy_) return nothing;
  const auto& neighbors = topology_.neighbors[owner];
  const auto k =
      static_cast<std::size_t>(std::find(neighbors.begin(), neighbors.end(), holder) - neighbors.begin());
  return k < neighbors.size() ? owed_[owner][k] : nothing;
}

}  // namespace sgdsim::protocols
