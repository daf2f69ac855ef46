#include "observation/retimer.hpp"

#include <stdexcept>

#include "observation/operation_replay.hpp"
#include "observation/outputs.hpp"

namespace sgdsim::observation {

Retimer::Retimer(const Schedule& schedule, std::ostream& trace)
    : schedule_(schedule), trace_(trace), pending_(schedule.rows.size()), latest_(schedule.nodes.size()) {
  write_trace_header(trace_, schedule_.shape);
}

void Retimer::replay(std::size_t node, protocols::Port& port) {
  std::size_t row = 0;
  replay_operations(schedule_.nodes.at(node), port, true, [&](const ScheduledOperation& op, double time) {
    protocols::NodeStats stats;
    protocols::take_counters(stats, time, port.counters());
    stats.triggers = op.learning.triggers;
    stats.compression_error = op.learning.compression_error;
    stats.compressions = op.learning.compressions;
    observed(row++, node, stats);
  });
}

void Retimer::observed(std::size_t row, std::size_t node, const protocols::NodeStats& stats) {
  const std::size_t nodes = schedule_.nodes.size();
  Pending& p = pending_.at(row);
  latest_[node] = stats;
  if (node != p.count) {
    if (p.early.empty()) {
      p.early.resize(nodes);
      p.arrived.assign(nodes, 0);
    }
    p.early[node] = stats;
    p.arrived[node] = 1;
    return;
  }
  p.sums.add(stats);
  ++p.count;
  while (p.count < nodes && !p.arrived.empty() && p.arrived[p.count]) {
    p.sums.add(p.early[p.count]);
    ++p.count;
  }
  if (p.count < nodes) return;
  // Rows complete in step order: every node reaches a row before the next.
  if (row != written_) throw std::logic_error("re-timed trace rows completed out of order");
  TraceRow out = schedule_.rows[row];
  p.sums.fill_timing(out, nodes);
  write_trace_row(trace_, out, schedule_.shape);
  last_ = out;
  ++written_;
  p = Pending{};
}

}  // namespace sgdsim::observation
