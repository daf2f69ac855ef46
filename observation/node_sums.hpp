#pragma once
// The sums over nodes behind a trace row's counting and timing columns, folded in node order (the observer
// and the re-timer share them, so a re-timed row adds up exactly like a live one).
#include <algorithm>
#include <cstddef>

#include "algorithms/protocols/probe.hpp"
#include "observation/trace.hpp"

namespace sgdsim::observation {

struct NodeSums {
  protocols::NodeStats total;  // sums over nodes (work_s too)
  double time = 0;             // the latest node's clock
  double waiting = 0;          // Σ_i (time_i − Σ work_i)

  void add(const protocols::NodeStats& stats) {
    total.payload_bytes += stats.payload_bytes;
    total.wire_bytes += stats.wire_bytes;
    total.messages += stats.messages;
    total.triggers += stats.triggers;
    total.lost += stats.lost;
    total.timed_out += stats.timed_out;
    total.compression_error += stats.compression_error;
    total.compressions += stats.compressions;
    time = std::max(time, stats.time);
    double working = 0;
    for (std::size_t w = 0; w < protocols::work_kinds; ++w) {
      total.work_s[w] += stats.work_s[w];
      working += stats.work_s[w];
    }
    waiting += stats.time - working;
  }

  // The columns that depend on the timing settings (simulated time, bytes on the wire with their headers) and
  // the message counts, for `nodes` nodes.
  void fill_timing(TraceRow& row, std::size_t nodes) const {
    row.sim_time_s = time;
    row.bits_sent = total.payload_bytes * 8;
    row.bytes_on_wire = total.wire_bytes;
    row.messages = total.messages;
    for (std::size_t w = 0; w < protocols::work_kinds; ++w)
      row.work_s[w] = total.work_s[w] / static_cast<double>(nodes);
    row.communication_s = waiting / static_cast<double>(nodes);
  }
};

}  // namespace sgdsim::observation
