#pragma once
// Replays a recorded schedule over a Fabric: connects every pair of nodes that talk (over the link between
// them), then runs each node's operations on its own thread and SocketPort from a common start, and returns
// each node's figures at its observe markers, in wall-clock seconds.
#include <cstddef>
#include <vector>

#include "algorithms/protocols/probe.hpp"
#include "emulation/fabric.hpp"
#include "emulation/interrupt.hpp"
#include "emulation/socket_port.hpp"
#include "observation/schedule.hpp"

namespace sgdsim::emulation {

// Throws Interrupted when `watch` saw a signal (after every node stopped), std::runtime_error naming the node
// when one failed.
std::vector<std::vector<protocols::NodeStats>> emulate(const observation::Schedule& schedule,
                                                       const Fabric& fabric, ComputeReplay compute,
                                                       Watch& watch);

}  // namespace sgdsim::emulation
