#pragma once
// Real math handed to the environment's worker pool while the other nodes that are ready at the same
// simulated instant run (Port::let_others_run), so that the math of many nodes overlaps. Spends no simulated
// time and makes the same Port calls whatever the pool's size: a simulation and its results never depend on
// it.
#include <functional>
#include <optional>

#include "algorithms/protocols/port.hpp"
#include "algorithms/protocols/protocol.hpp"
#include "common/wall_clock.hpp"

namespace sgdsim::protocols {

// Runs `work` and returns when it is done, rethrowing what it threw. `work` may run on another thread while
// other nodes run: it must touch only the calling node's own data, which no other node reads or writes
// meanwhile. `part`: where the calling thread's wall time goes while it waits (none: "simulator and
// protocol"). Without a pool (in-process tests), `work` runs at once.
void offload(const Environment& environment, Port& port, const std::function<void()>& work,
             std::optional<WallClock::Part> part = std::nullopt);

}  // namespace sgdsim::protocols
