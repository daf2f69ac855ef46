#pragma once
// timeline.json: a run's timeline in the Trace Event Format (the JSON that Perfetto and chrome://tracing
// open). Each node is a process: its work (gradient, encode, decode, mixing, update), receives and waits are
// complete events on its thread (its server's on a second one), and its messages in transit are async events.
// Each link direction that carried a message is a counter of its utilisation, under a process "links".
// Timestamps are simulated microseconds, so the file is as deterministic as the run.
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "sim/traffic.hpp"

namespace sgdsim::observation {

void write_timeline(std::ostream& out, const sim::Timeline& timeline, const std::vector<sim::LinkUse>& links,
                    std::size_t nodes);

// One line for stderr when the timeline was cut at its size limit (empty otherwise).
std::string timeline_cut_note(const sim::Timeline& timeline);

}  // namespace sgdsim::observation
