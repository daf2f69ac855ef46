#include "sim/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

namespace sgdsim::sim {
namespace {

void interrupted(int) {
  // Only async-signal-safe calls here: the simulation is in an unknown state, so nothing is cleaned up.
  static const char message[] =
      "\nsgdsim: interrupted: the run stopped and wrote nothing (its temporary folder DIR.tmp-HOST-PID is "
      "removed by the next run into the same -o)\n";
  [[maybe_unused]] const ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
  _exit(128 + SIGINT);
}

}  // namespace

void report_interrupts() {
  struct sigaction action {};
  action.sa_handler = interrupted;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
}

}  // namespace sgdsim::sim
