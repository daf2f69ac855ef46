#pragma once
// Running one simulation: the topology becomes a SimGrid platform, each node an actor whose body talks to the
// network only through its Port. One simulation per process (SimGrid 3.32 allows one engine per process).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "algorithms/protocols/port.hpp"
#include "algorithms/protocols/prices.hpp"
#include "sim/dynamics.hpp"
#include "sim/network_calibration.hpp"
#include "sim/traffic.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::sim {

// The transport interface belongs to the protocols; the simulator implements it.
using protocols::Bytes;
using protocols::Counters;
using protocols::Port;

struct NetworkOptions {
  std::string model = "ideal";   // "ideal": CM02, no cross-traffic, no TCP window cap; "tcp": SimGrid's LV08
  std::size_t header_bytes = 0;  // headers of one message (mtu 0) or of one segment (mtu > 0)
  std::size_t mtu = 0;           // 0: no segmentation; else the bytes of one segment, headers included
  double host_speed = 1e10;      // flop/s of every host
  bool verbose = false;          // let SimGrid log
  Dynamics dynamics;             // what varies or fails during the run (nothing by default)
  NetworkCalibration calibration;  // factors by message size on top of the model's (none by default)
  // What the nodes' charges cost (algorithms/protocols/prices.hpp): the table the protocol registered its
  // prices in. Null: an empty table (any charge is then an error).
  std::shared_ptr<const protocols::PriceTable> prices;
};

using NodeBody = std::function<void(std::size_t node, Port& port)>;

// Runs the simulation to completion and returns the final simulated time in seconds. An exception escaping a
// node body, or a deadlock, is rethrown here as std::runtime_error (an InputError stays an InputError) naming
// the node; it never aborts the process. A Diverged stays a Diverged and gains the simulated time at which
// the run stopped. Must be called at most once per process. With a `server` body, each node also runs it as a
// second actor on its host (Protocol::serve), with a port that takes requests; servers are stopped when every
// `body` has returned. With a `recording`, its links (and timeline, when asked) are filled, also for a run
// that ends in an error.
double simulate(const topology::Topology& topology, const NetworkOptions& options, const NodeBody& body,
                const NodeBody& server = {}, Recording* recording = nullptr);

}  // namespace sgdsim::sim
