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

// Coordinates per second of a codec on the profiled device.
struct CodecSpeed {
  double encode = 0;
  double decode = 0;
};

// The price of one codec configuration and where it came from (a profile entry's `source`, or the scenario).
struct CodecPrice {
  CodecSpeed speed;
  std::string source;
};

struct Costs {
  // Which kinds of work cost simulated time. Default-constructed Costs charge the gradient only (the
  // "communication only" view).
  std::array<bool, work_kinds> charged = {true, false, false, false, false};
  double memory_bandwidth = 0;  // bytes/s of vector arithmetic (read + written)
  // Prices per codec configuration: the priced configuration (compression/speed_keys.hpp) as compact JSON.
  std::map<std::string, CodecPrice> configurations;
  // The scenario's overrides per compressor kind, for every configuration of that kind.
  std::map<std::string, CodecSpeed> codecs;
  std::string profile;  // the profile the configurations came from, for error messages

  bool charges(Work work) const { return charged[static_cast<std::size_t>(work)]; }
};

}  // namespace sgdsim::protocols
