#pragma once
// What a simulation records about its network and its nodes' time, beside what the protocols count: each
// physical link's traffic (links.csv, the bottleneck in summary.json) and, when asked, a timeline of every
// node's work, receives, waits and sends (timeline.json). Plain data, no SimGrid types: the observation layer
// writes it. Every figure is a simulated time or a byte count, hence deterministic.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sgdsim::sim {

// One direction of one physical link (links are split-duplex: each direction has its own bandwidth).
struct LinkUse {
  std::string link;            // the physical link, e.g. "link0-1"
  std::string from, to;        // the direction's ends, e.g. "node0", "node1"
  double bandwidth = 0;        // nominal bytes/s
  std::uint64_t bytes = 0;     // wire bytes of the nodes' messages routed over it (headers included)
  std::uint64_t messages = 0;  // those messages
  double busy_s = 0;           // simulated seconds during which at least one of them was in transit over it
  double utilisation = 0;      // bytes / (bandwidth × the run's simulated seconds)
};

// A span of a node's time, or one message's transfer.
struct Span {
  enum class Kind : std::uint8_t {
    work,          // computing: `work` is the protocols::Work kind
    receive,       // blocked in a receive from `peer` (waiting for it, then the transfer)
    wait_sends,    // blocked until the node's own sends are delivered
    wait_request,  // a server blocked until a request arrives
    send,          // a message to `peer` in transit, `bytes` on the wire (overlaps the node's other spans)
  };
  double start = 0, end = 0;  // simulated seconds
  std::uint32_t node = 0;
  std::uint32_t peer = 0;
  Kind kind = Kind::work;
  std::uint8_t work = 0;
  bool server = false;      // on the node's server actor (asynchronous protocols)
  std::int64_t step = 0;    // the step the node was computing
  std::uint64_t bytes = 0;  // send: wire bytes
};

struct TimelineOptions {
  // Only spans of steps first_step..last_step (the step a node is computing: 1 is its first step).
  std::int64_t first_step = 1, last_step = std::numeric_limits<std::int64_t>::max();
  // At most this many spans; the timeline is cut at the first span beyond, and says so.
  std::size_t max_spans = 1'000'000;
  // The step node i is computing (set by the composition root, which knows the observer).
  std::function<std::int64_t(std::size_t node)> step_of;
};

struct Timeline {
  TimelineOptions options;
  std::vector<Span> spans;  // in the order they ended
  // The links (indices into Recording::links) of the route from one node to another, for every pair that
  // carried a message in the timeline.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::uint32_t>> routes;
  bool cut = false;     // max_spans was reached; later spans are left out
  double cut_time = 0;  // simulated time of the first span left out
  std::int64_t cut_step = 0;
};

// Filled by simulate(): `timeline` is recorded when `record_timeline` is set.
struct Recording {
  bool record_timeline = false;
  Timeline timeline;
  std::vector<LinkUse> links;  // every direction of every physical link, in platform order
};

}  // namespace sgdsim::sim
