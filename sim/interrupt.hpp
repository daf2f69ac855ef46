#pragma once
// Ctrl-C during a simulation. SimGrid's engine installs a SIGINT handler that exits with status 1 and no
// message; a run stopped by the user should say so and exit as interrupted programs do (128 + SIGINT).

namespace sgdsim::sim {

// Replaces the engine's SIGINT handler: call after the engine is created.
void report_interrupts();

}  // namespace sgdsim::sim
