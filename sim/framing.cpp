#include "sim/framing.hpp"

#include <stdexcept>

namespace sgdsim::sim {

std::optional<std::string> framing_problem(std::size_t header_bytes, std::size_t mtu) {
  if (mtu == 0 || mtu > header_bytes) return std::nullopt;
  return "mtu " + std::to_string(mtu) + " must exceed header_bytes " + std::to_string(header_bytes) +
         " to leave room for payload in a segment, or be 0 (no segmentation)";
}

std::uint64_t wire_size(std::uint64_t payload, std::size_t header_bytes, std::size_t mtu) {
  if (mtu == 0) return payload + header_bytes;
  if (auto problem = framing_problem(header_bytes, mtu)) throw std::invalid_argument(*problem);
  const std::uint64_t per_segment = mtu - header_bytes;
  const std::uint64_t segments = payload == 0 ? 1 : (payload + per_segment - 1) / per_segment;
  return payload + segments * header_bytes;
}

}  // namespace sgdsim::sim
