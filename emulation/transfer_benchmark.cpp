#include "emulation/transfer_benchmark.hpp"

#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include "emulation/emulator.hpp"
#include "emulation/fabric.hpp"

namespace sgdsim::emulation {

namespace {

std::vector<double> with_one_byte(const std::vector<double>& sizes) {
  std::vector<double> all{1};
  all.insert(all.end(), sizes.begin(), sizes.end());
  return all;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

observation::Schedule ping_pong_schedule(const std::vector<double>& sizes, std::size_t repeats) {
  observation::Schedule schedule;
  schedule.nodes.resize(2);
  observation::OperationLog& sender = schedule.nodes[0];
  observation::OperationLog& echo = schedule.nodes[1];
  for (double size : with_one_byte(sizes))
    for (std::size_t round = 0; round <= repeats; ++round) {
      sender.send(1, static_cast<std::uint64_t>(size));
      sender.plain(observation::Operation::wait_sends);
      sender.receive(1);
      sender.observe({});
      echo.receive(0);
      echo.send(0, 1);
      echo.plain(observation::Operation::wait_sends);
      echo.observe({});
    }
  return schedule;
}

std::vector<Transfer> one_way_transfers(const std::vector<double>& sizes, std::size_t repeats,
                                        const std::vector<double>& marker_times, double rate) {
  const std::vector<double> all = with_one_byte(sizes);
  if (marker_times.size() != all.size() * (repeats + 1))
    throw std::logic_error("one_way_transfers: " + std::to_string(marker_times.size()) +
                           " markers, expected " + std::to_string(all.size() * (repeats + 1)));
  std::vector<double> round_trip;
  double previous = 0;
  for (std::size_t k = 0, i = 0; k < all.size(); ++k) {
    std::vector<double> rounds;
    for (std::size_t round = 0; round <= repeats; ++round, ++i) {
      if (round > 0) rounds.push_back(marker_times[i] - previous);  // round 0 warms the connection up
      previous = marker_times[i];
    }
    round_trip.push_back(median(rounds));
  }
  std::vector<Transfer> transfers;
  for (std::size_t k = 1; k < all.size(); ++k)
    transfers.push_back({all[k], rate, 0, std::max(round_trip[k] - round_trip[0] / 2, 1e-9)});
  return transfers;
}

std::vector<Transfer> measure_transfers(const BenchmarkOptions& options, Watch& watch) {
  const observation::Schedule schedule = ping_pong_schedule(options.sizes, options.repeats);
  std::vector<Transfer> out;
  for (double rate : options.rates) {
    if (options.progress)
      std::fprintf(options.progress, "sgdsim: calibrate: ping-pong of %zu sizes over one link at %s\n",
                   options.sizes.size(), tc_rate(rate).c_str());
    FabricPlan plan("sgdsim-" + std::to_string(getpid()) + "-", 2, {{0, 1, rate}}, {options.qdisc});
    std::vector<std::vector<protocols::NodeStats>> markers;
    {
      Fabric fabric(plan);
      watch.check();
      markers = emulate(schedule, fabric, {}, watch);
      fabric.teardown();
    }
    std::vector<double> times;
    for (const protocols::NodeStats& s : markers[0]) times.push_back(s.time);
    for (const Transfer& t : one_way_transfers(options.sizes, options.repeats, times, rate)) out.push_back(t);
  }
  return out;
}

}  // namespace sgdsim::emulation
