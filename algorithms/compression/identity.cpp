#include "algorithms/compression/identity.hpp"

#include <cstring>
#include <string>

#include "common/error.hpp"

namespace sgdsim::compression {

void Identity::encode_into(std::span<const float> values, Rng& /*rng*/, Bytes& out) const {
  const std::size_t at = out.size();
  out.resize(at + values.size_bytes());
  if (!values.empty()) std::memcpy(out.data() + at, values.data(), values.size_bytes());
}

void Identity::decode_from(std::span<const std::uint8_t> message, std::size_t start,
                           std::span<float> out) const {
  const std::size_t available = start <= message.size() ? message.size() - start : 0;
  if (available != out.size_bytes()) {
    const std::size_t offset = std::min(message.size(), start + std::min(available, out.size_bytes()));
    throw DecodeError("none decoder: expected " + std::to_string(out.size_bytes()) +
                      " bytes of float32 values, found " + std::to_string(available) +
                      (available < out.size_bytes() ? " (truncated message)" : " (trailing bytes)") +
                      " at byte offset " + std::to_string(offset) + " of " + std::to_string(message.size()));
  }
  if (!out.empty()) std::memcpy(out.data(), message.data() + start, out.size_bytes());
}

}  // namespace sgdsim::compression
