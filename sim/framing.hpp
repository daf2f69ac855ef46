#pragma once
// How a message of P payload bytes becomes bytes on the wire: `header_bytes` once per message (mtu 0), or cut
// into segments of at most mtu - header_bytes payload bytes, each paying `header_bytes`.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace sgdsim::sim {

// Why header_bytes and mtu cannot frame messages, or nullopt when they can (mtu 0, or mtu > header_bytes so
// that a segment has room for payload). The one statement of that rule: the scenario reader reports it at
// the key, wire_size refuses what it rejects.
std::optional<std::string> framing_problem(std::size_t header_bytes, std::size_t mtu);

// The simulated size of a message of `payload` bytes. With mtu 0 it pays `header_bytes` once; otherwise it is
// cut into segments of at most mtu - header_bytes payload bytes, each paying `header_bytes`, and an empty
// message is still one segment: payload + max(1, ceil(payload / (mtu - header_bytes))) * header_bytes.
// Throws std::invalid_argument (framing_problem's text) for a pair it rejects.
std::uint64_t wire_size(std::uint64_t payload, std::size_t header_bytes, std::size_t mtu);

}  // namespace sgdsim::sim
