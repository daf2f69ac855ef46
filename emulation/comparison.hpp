#pragma once
// Simulated against measured time, interval by interval: a node's clock and compute seconds at consecutive
// observe markers (one per trace row) give, per node and interval, the seconds spent computing and the rest,
// waiting on the network (communication, as the trace's communication_s counts it). The errors are those of
// the communication time per step.
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/protocols/probe.hpp"

namespace sgdsim::emulation {

struct Interval {
  std::size_t node = 0;
  std::int64_t step = 0;   // the step at the interval's end (its trace row)
  std::int64_t steps = 0;  // steps it spans
  double simulated_compute_s = 0, simulated_communication_s = 0;
  double measured_compute_s = 0, measured_communication_s = 0;
};

// markers[node][row] on each side (replay_node); `steps[row]` the trace rows' steps. Rows whose interval
// spans no step (the first, at step 0) are left out. Throws std::invalid_argument when the sides disagree in
// shape.
std::vector<Interval> intervals(const std::vector<std::vector<protocols::NodeStats>>& simulated,
                                const std::vector<std::vector<protocols::NodeStats>>& measured,
                                const std::vector<std::int64_t>& steps);

// (measured − simulated) / simulated.
double relative_error(double simulated, double measured);

// The q-quantile (0 ≤ q ≤ 1) of `values`, linear between order statistics (R's type 7); NaN when empty.
double quantile(std::vector<double> values, double q);

struct ErrorSummary {
  std::size_t intervals = 0;   // with a positive simulated communication time
  double median_relative = 0;  // of |relative error|
  double p90_relative = 0;     // of |relative error|
  double median_signed = 0;    // of the relative error (negative: the model is slow, the stack fast)
};

// The errors of the communication time per step over intervals whose simulated communication time is
// positive (an interval the model spends no time waiting in has no relative error).
ErrorSummary summarize(const std::vector<Interval>& intervals);

// comparison.csv: one row per interval, seconds per step.
void write_comparison(std::ostream& out, const std::vector<Interval>& intervals);

}  // namespace sgdsim::emulation
