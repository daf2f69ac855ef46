#pragma once
// Doing one node's recorded operations again on a port, in order, with dummy payloads of the recorded sizes:
// what re-timing (observation/retimer.hpp) and real-network emulation (emulation/replay.hpp) share.
#include <functional>

#include "algorithms/protocols/port.hpp"
#include "observation/schedule.hpp"

namespace sgdsim::observation {

// `observe` is called at each observe marker with the marker and the node's clock, read first so that the
// work charged so far is done. With `charges` false the node's work (charges and background pieces) is left
// out: a communication-only replay.
void replay_operations(const OperationLog& log, protocols::Port& port, bool charges,
                       const std::function<void(const ScheduledOperation&, double time)>& observe);

}  // namespace sgdsim::observation
