#pragma once
// Replaying one node's recorded operations (observation/schedule.hpp) on any Port — SimGrid's for the
// prediction, real sockets for the measurement — and reading the node's clock and counters at each observe
// marker, so that both sides are cut at the same points of the same work.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "algorithms/protocols/port.hpp"
#include "algorithms/protocols/probe.hpp"
#include "observation/schedule.hpp"

namespace sgdsim::emulation {

// The node's figures at each of its observe markers, in order (one per trace row). Without `charges`, the
// recorded work is left out (a communication-only comparison).
std::vector<protocols::NodeStats> replay_node(const observation::OperationLog& log, protocols::Port& port,
                                              bool charges = true);

// What node `to` receives from node `from`, in sending order: a message of that many payload bytes, or
// nullopt for a silence. A receiver knows the size of every message before it arrives: the stream needs no
// framing of its own.
using Deliveries = std::vector<std::optional<std::uint64_t>>;
// deliveries[from][to]; empty for pairs that never talk.
std::vector<std::vector<Deliveries>> deliveries(const observation::Schedule& schedule);

// The unordered pairs (a < b) that exchange at least one message, in order.
std::vector<std::pair<std::size_t, std::size_t>> talking_pairs(const observation::Schedule& schedule);

}  // namespace sgdsim::emulation
