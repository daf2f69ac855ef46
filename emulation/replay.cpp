#include "emulation/replay.hpp"

#include <set>

namespace sgdsim::emulation {

using observation::Operation;

std::vector<protocols::NodeStats> replay_node(const observation::OperationLog& log, protocols::Port& port,
                                              bool charges) {
  std::vector<protocols::NodeStats> markers;
  observation::OperationCursor cursor(log);
  while (!cursor.done()) {
    const observation::ScheduledOperation& op = cursor.next();
    switch (op.kind) {
      case Operation::charge:
        if (charges) port.charge(op.terms);
        break;
      case Operation::send:
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
      case Operation::background:  // overlapped work: a port without a second actor does it in order
        if (charges) port.start_background(op.terms);
        break;
      case Operation::await_background:
        if (charges) port.await_background(op.count);
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
        markers.push_back(stats);
        break;
      }
    }
  }
  return markers;
}

std::vector<std::vector<Deliveries>> deliveries(const observation::Schedule& schedule) {
  const std::size_t nodes = schedule.nodes.size();
  std::vector<std::vector<Deliveries>> out(nodes, std::vector<Deliveries>(nodes));
  for (std::size_t from = 0; from < nodes; ++from) {
    observation::OperationCursor cursor(schedule.nodes[from]);
    while (!cursor.done()) {
      const observation::ScheduledOperation& op = cursor.next();
      if (op.kind == Operation::send)
        out[from][op.peer].push_back(op.bytes);
      else if (op.kind == Operation::silence)
        out[from][op.peer].push_back(std::nullopt);
    }
  }
  return out;
}

std::vector<std::pair<std::size_t, std::size_t>> talking_pairs(const observation::Schedule& schedule) {
  std::set<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t from = 0; from < schedule.nodes.size(); ++from) {
    observation::OperationCursor cursor(schedule.nodes[from]);
    while (!cursor.done()) {
      const observation::ScheduledOperation& op = cursor.next();
      if (op.kind == Operation::send) pairs.insert({std::min(from, op.peer), std::max(from, op.peer)});
    }
  }
  return {pairs.begin(), pairs.end()};
}

}  // namespace sgdsim::emulation
