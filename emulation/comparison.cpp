#include "emulation/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace sgdsim::emulation {

namespace {
double compute_s(const protocols::NodeStats& stats) {
  double total = 0;
  for (double s : stats.work_s) total += s;
  return total;
}
}  // namespace

std::vector<Interval> intervals(const std::vector<std::vector<protocols::NodeStats>>& simulated,
                                const std::vector<std::vector<protocols::NodeStats>>& measured,
                                const std::vector<std::int64_t>& steps) {
  if (simulated.size() != measured.size())
    throw std::invalid_argument("the simulated and measured runs have different numbers of nodes");
  std::vector<Interval> out;
  for (std::size_t node = 0; node < simulated.size(); ++node) {
    const auto& sim = simulated[node];
    const auto& real = measured[node];
    if (sim.size() != steps.size() || real.size() != steps.size())
      throw std::invalid_argument("node " + std::to_string(node) + " has " + std::to_string(sim.size()) +
                                  " simulated and " + std::to_string(real.size()) + " measured markers for " +
                                  std::to_string(steps.size()) + " trace rows");
    protocols::NodeStats sim_before, real_before;  // the start: time 0, nothing done
    std::int64_t step_before = 0;
    for (std::size_t row = 0; row < steps.size(); ++row) {
      const std::int64_t spanned = steps[row] - step_before;
      if (spanned > 0) {
        Interval interval{.node = node, .step = steps[row], .steps = spanned};
        const double n = static_cast<double>(spanned);
        const double sim_compute = compute_s(sim[row]) - compute_s(sim_before);
        const double real_compute = compute_s(real[row]) - compute_s(real_before);
        interval.simulated_compute_s = sim_compute / n;
        interval.simulated_communication_s = (sim[row].time - sim_before.time - sim_compute) / n;
        interval.measured_compute_s = real_compute / n;
        interval.measured_communication_s = (real[row].time - real_before.time - real_compute) / n;
        out.push_back(interval);
      }
      sim_before = sim[row];
      real_before = real[row];
      step_before = steps[row];
    }
  }
  return out;
}

double relative_error(double simulated, double measured) {
  return (measured - simulated) / simulated;
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return values[below] + fraction * (values[above] - values[below]);
}

ErrorSummary summarize(const std::vector<Interval>& intervals) {
  std::vector<double> absolute, signed_errors;
  for (const Interval& interval : intervals) {
    if (!(interval.simulated_communication_s > 0)) continue;
    const double error =
        relative_error(interval.simulated_communication_s, interval.measured_communication_s);
    absolute.push_back(std::abs(error));
    signed_errors.push_back(error);
  }
  return {.intervals = absolute.size(),
          .median_relative = quantile(absolute, 0.5),
          .p90_relative = quantile(absolute, 0.9),
          .median_signed = quantile(signed_errors, 0.5)};
}

void write_comparison(std::ostream& out, const std::vector<Interval>& intervals) {
  out << "node,step,steps,simulated_compute_s,simulated_communication_s,measured_compute_s,"
         "measured_communication_s,relative_error\n";
  for (const Interval& i : intervals) {
    const double error = i.simulated_communication_s > 0
                             ? relative_error(i.simulated_communication_s, i.measured_communication_s)
                             : std::numeric_limits<double>::quiet_NaN();
    out << fmt::format("{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.6g}\n", i.node, i.step, i.steps,
                       i.simulated_compute_s, i.simulated_communication_s, i.measured_compute_s,
                       i.measured_communication_s, error);
  }
}

}  // namespace sgdsim::emulation
