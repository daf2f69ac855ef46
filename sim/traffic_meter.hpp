#pragma once
// Measures what sim/traffic.hpp records, on SimGrid: the links of each route (asked of SimGrid once per
// pair), the bytes and busy time of every link direction, and the timeline's spans. Internal to sim/.
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include <simgrid/s4u.hpp>

#include "sim/traffic.hpp"

namespace sgdsim::sim {

// A direction of a physical link as the platform made it.
struct PlatformLink {
  simgrid::s4u::Link* link = nullptr;
  LinkUse use;  // its name, ends and bandwidth (counts zero)
};

class TrafficMeter {
 public:
  TrafficMeter(Recording& recording, const std::vector<simgrid::s4u::Host*>& hosts,
               std::vector<PlatformLink> links);

  // A message was put on its way at simulated time `put` (now).
  void started(double put);
  // The message put at `put` from node `from` to node `to`, `bytes` on the wire, was in transit from `start`
  // to `finish` (SimGrid's times of its comm).
  void carried(std::size_t from, std::size_t to, std::uint64_t bytes, double put, double start,
               double finish);
  // A span of a node's time (timeline only; a no-op without one).
  void span(Span span);
  bool timeline() const { return recording_->record_timeline; }
  // Completes the links' figures for a run that ended at simulated time `end`.
  void finish(double end);

 private:
  const std::vector<std::uint32_t>& route(std::size_t from, std::size_t to);
  // The union of the transfer intervals of one link direction: intervals that may still grow or merge, and
  // the length of those that cannot (they end before every message still on its way started).
  struct Busy {
    std::map<double, double> open;  // start -> end, disjoint
    double closed = 0;
  };
  void add_interval(Busy& busy, double start, double finish);
  void close_before(Busy& busy, double time);

  Recording* recording_;
  std::vector<simgrid::s4u::Host*> hosts_;
  std::vector<simgrid::s4u::Link*> links_;
  std::unordered_map<const simgrid::s4u::Link*, std::uint32_t> index_;
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> routes_;
  std::vector<Busy> busy_;
  std::multiset<double> in_flight_;  // put times of the messages not yet carried()
};

}  // namespace sgdsim::sim
