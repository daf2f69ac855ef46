#include "observation/retimer.hpp"

#include <stdexcept>

#include "observation/outputs.hpp"

namespace sgdsim::observation {

Retimer::Retimer(const Schedule& schedule, std::ostream& trace)
    : schedule_(schedule), trace_(trace), pending_(schedule.rows.size()), latest_(schedule.nodes.size()) {
  write_trace_header(trace_, schedule_.shape);
}

void Retimer::replay(std::size_t node, protocols::Port& port) {
  OperationCursor cursor(schedule_.nodes.at(node));
  std::size_t row = 0;
  while (!cursor.done()) {
    const ScheduledOperation& op = cursor.next();
    switch (op.kind) {
      case Operation::charge:
        port.charge(op.terms);
        break;
      case Operation::send:
        // Only the size travels: SimGrid charges time for it, and nobody reads the bytes.
        port.send(op.peer, protocols::Bytes(op.bytes));
        break;
      case Operation::silence:
        port.send_silence(op.peer);
        break;
      case Operation::receive:
        port.receive_or_miss(op.peer);
        break;
      case Operation::wait_sends:
        port.wait_sends();
        break;
      case Operation::background:
        port.start_background(op.terms);
        break;
      case Operation::await_background:
        port.await_background(op.count);
        break;
      case Operation::yield:
        port.let_others_run();
        break;
      case Operation::now:
        port.now();
        break;
      case Operation::observe: {
        protocols::NodeStats stats;
        const double time = port.now();  // first: it completes the work charged so far
        protocols::take_counters(stats, time, port.counters());
        stats.triggers = op.learning.triggers;
        stats.compression_error = op.learning.compression_error;
        stats.compressions = op.learning.compressions;
        observed(row++, node, stats);
        break;
      }
    }
  }
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
