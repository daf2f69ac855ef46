#pragma once
// The observation hook. A node hands its model to the probe at evaluation steps; the probe (the observer in
// observation/) costs no simulated time and no bits, and nothing it computes flows back into the protocol.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "algorithms/protocols/port.hpp"

namespace sgdsim::protocols {

// Cumulative figures of one node at the moment it reaches an evaluation step.
struct NodeStats {
  std::uint64_t payload_bytes = 0;  // encoded bytes sent (all messages, all destinations)
  std::uint64_t wire_bytes = 0;     // payload plus headers
  std::uint64_t messages = 0;
  std::uint64_t triggers = 0;               // event firings (SPARQ); stays 0 for protocols without a trigger
  double compression_error = 0;             // sum over compressed vectors of ||C(v) - v||^2 / ||v||^2
  std::uint64_t compressions = 0;           // how many vectors that sum covers
  double time = 0;                          // simulated seconds
  std::array<double, work_kinds> work_s{};  // simulated seconds of the host's work, by kind (Work)
  std::uint64_t lost = 0;                   // sends that reached nobody (failures)
  std::uint64_t timed_out = 0;              // receives that gave up (failures)
  double hidden_s = 0;                      // background work while waiting on the network (Counters)
  double concurrent_work_s = 0;             // background work while also computing (Counters)
};

// Adds a port's counters to a node's figures (a node whose work is done by several ports sums them).
inline void add_counters(NodeStats& stats, const Counters& counters) {
  stats.payload_bytes += counters.payload_bytes;
  stats.wire_bytes += counters.wire_bytes;
  stats.messages += counters.messages;
  for (std::size_t w = 0; w < work_kinds; ++w) stats.work_s[w] += counters.work_s[w];
  stats.lost += counters.lost;
  stats.timed_out += counters.timed_out;
  stats.hidden_s += counters.hidden_s;
  stats.concurrent_work_s += counters.concurrent_work_s;
}

// A node's figures at simulated time `time` from its port's counters (the trigger and compression-error
// fields are the protocol's own and stay as they are). Live runs and re-timed runs fill them the same way.
inline void take_counters(NodeStats& stats, double time, const Counters& counters) {
  stats.time = time;
  stats.payload_bytes = stats.wire_bytes = stats.messages = stats.lost = stats.timed_out = 0;
  stats.work_s = {};
  stats.hidden_s = stats.concurrent_work_s = 0;
  add_counters(stats, counters);
}

class Probe {
 public:
  virtual ~Probe() = default;
  // True when `step` (completed steps, 0 = initial model) is an evaluation step.
  virtual bool wants(std::int64_t step) const = 0;
  virtual void observe(std::int64_t step, std::size_t node, std::span<const float> model,
                       const NodeStats& stats) = 0;
  // Node `node`'s model state (BatchNorm running statistics) at an evaluation step, handed just before
  // observe() for models that have state.
  virtual void observe_state(std::int64_t step, std::size_t node, std::span<const float> state) {
    (void)step;
    (void)node;
    (void)state;
  }
  // Called at the end of every step of every node, with its (finite) model already checked; lets the probe
  // know which step a node is in when something goes wrong mid-step.
  virtual void reached(std::int64_t step, std::size_t node) {
    (void)step;
    (void)node;
  }
};

}  // namespace sgdsim::protocols
