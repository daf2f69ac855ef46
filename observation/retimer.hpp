#pragma once
// Re-timing a recorded run (docs/workflow.md, "Learn once, time many"): each node's recorded operations are
// done again on a port, in order, with dummy payloads of the recorded sizes; at each observe marker the
// node's clock and counters are read, and when every node has reached a trace row, the row is written with
// its learning columns from the recording and its counting and timing columns from the replay, summed in node
// order as the observer sums them. Nothing of the learning is computed again.
#include <cstddef>
#include <ostream>
#include <vector>

#include "algorithms/protocols/port.hpp"
#include "algorithms/protocols/probe.hpp"
#include "observation/node_sums.hpp"
#include "observation/schedule.hpp"
#include "observation/trace.hpp"

namespace sgdsim::observation {

class Retimer {
 public:
  // Writes the trace header at once and each row as it completes.
  Retimer(const Schedule& schedule, std::ostream& trace);
  // Node `node`'s recorded operations, on `port`.
  void replay(std::size_t node, protocols::Port& port);
  // True when every row was written.
  bool complete() const { return written_ == schedule_.rows.size(); }
  const TraceRow& last() const { return last_; }
  // Each node's figures at its last marker (its totals at the end of the run).
  const std::vector<protocols::NodeStats>& node_stats() const { return latest_; }

 private:
  struct Pending {
    std::vector<protocols::NodeStats> early;  // reports of nodes whose turn has not come
    std::vector<char> arrived;
    std::size_t count = 0;  // nodes folded in: 0 .. count-1
    NodeSums sums;
  };
  void observed(std::size_t row, std::size_t node, const protocols::NodeStats& stats);
  const Schedule& schedule_;
  std::ostream& trace_;
  std::vector<Pending> pending_;  // per row
  std::vector<protocols::NodeStats> latest_;
  std::size_t written_ = 0;
  TraceRow last_;
};

}  // namespace sgdsim::observation
