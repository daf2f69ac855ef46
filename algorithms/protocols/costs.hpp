#pragma once
// The compute settings a run's price table is built from (prices.hpp, docs/compute.md): encode and decode
// throughputs per compressor kind, a memory bandwidth for vector arithmetic, and which kinds of work are
// charged at all. Deterministic by construction: never the wall clock of the current run.
#include <array>
#include <cstddef>
#include <map>
#include <string>

#include "algorithms/protocols/port.hpp"

namespace sgdsim::protocols {

// Coordinates per second of one compressor kind on the profiled device.
struct CodecSpeed {
  double encode = 0;
  double decode = 0;
};

struct Costs {
  // Which kinds of work cost simulated time. Default-constructed Costs charge the gradient only (the
  // "communication only" view).
  std::array<bool, work_kinds> charged = {true, false, false, false, false};
  double memory_bandwidth = 0;  // bytes/s of vector arithmetic (read + written)
  std::map<std::string, CodecSpeed> codecs;

  bool charges(Work work) const { return charged[static_cast<std::size_t>(work)]; }
};

}  // namespace sgdsim::protocols
