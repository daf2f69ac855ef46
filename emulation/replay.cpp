#include "emulation/replay.hpp"

#include <set>

#include "observation/operation_replay.hpp"

namespace sgdsim::emulation {

using observation::Operation;

std::vector<protocols::NodeStats> replay_node(const observation::OperationLog& log, protocols::Port& port,
                                              bool charges) {
  std::vector<protocols::NodeStats> markers;
  observation::replay_operations(log, port, charges,
                                 [&](const observation::ScheduledOperation& op, double time) {
                                   protocols::NodeStats stats;
                                   protocols::take_counters(stats, time, port.counters());
                                   stats.triggers = op.learning.triggers;
                                   markers.push_back(stats);
                                 });
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
