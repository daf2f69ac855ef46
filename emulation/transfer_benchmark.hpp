#pragma once
// Measuring one-way transfers over a real shaped link (docs/validation.md, "Calibration"): two namespaces,
// one veth pair shaped to each rate, one persistent TCP connection; node 0 sends a message of each size and
// node 1 answers with one byte, as a ping-pong benchmark (SkaMPI's, which SMPI's calibration uses). The
// one-way time of s bytes is the round trip less half the round trip of one byte.
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "emulation/fabric.hpp"
#include "emulation/interrupt.hpp"
#include "emulation/network_fit.hpp"
#include "observation/schedule.hpp"

namespace sgdsim::emulation {

struct BenchmarkOptions {
  std::vector<double> sizes;  // bytes
  std::vector<double> rates;  // bytes per second
  std::size_t repeats = 5;    // round trips per size; the median is kept (after one unmeasured warm-up)
  std::string qdisc = qdisc_kinds.front();
  std::FILE* progress = nullptr;
};

// The ping-pong schedule of one rate (tested without namespaces): per size (one byte first), 1 + repeats
// round trips, each ended by an observe marker on both nodes.
observation::Schedule ping_pong_schedule(const std::vector<double>& sizes, std::size_t repeats);

// Round trips in the marker times of node 0 (seconds since the start) -> one Transfer per size, the median of
// its repeats, less half the one-byte round trip; `rate` and latency 0 filled in.
std::vector<Transfer> one_way_transfers(const std::vector<double>& sizes, std::size_t repeats,
                                        const std::vector<double>& marker_times, double rate);

// Needs root, ip and tc (require_network_tools). Builds and tears down a fabric per rate.
std::vector<Transfer> measure_transfers(const BenchmarkOptions& options, Watch& watch);

}  // namespace sgdsim::emulation
