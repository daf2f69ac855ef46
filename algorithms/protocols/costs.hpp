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

// A figure of an accelerator profile and where it came from (a datasheet, a fit, ...).
struct Figure {
  double value = 0;
  std::string source;
};

// An accelerator's roofline (docs/compute.md, "Accelerator profiles"): a layer of a model takes
// max(flops / (efficiency · peak), bytes / memory bandwidth) plus a launch per kernel; vector work and codecs
// take their bytes over the memory bandwidth plus their launches.
struct Roofline {
  Figure peak;              // flop/s of model math at the profile's precision
  Figure efficiency;        // the fraction of the peak a layer's math reaches, fitted to published throughput
  Figure memory_bandwidth;  // bytes/s
  Figure launch_overhead;   // seconds per kernel launch
  Figure bytes_per_value;   // bytes of an activation or a weight in the model's math (4 fp32/TF32, 2 AMP)
  std::string profile;      // the profile's name, for the sources
  bool active() const { return peak.value > 0; }
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
  Roofline roofline;    // active for an accelerator profile: model math per layer, launches for the rest

  bool charges(Work work) const { return charged[static_cast<std::size_t>(work)]; }
};

}  // namespace sgdsim::protocols
