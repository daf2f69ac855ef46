#pragma once
// The values of one trace.csv row, as the observer measures them. Which columns they make, their order, units
// and meanings are declared in observation/outputs.hpp. A value that does not apply is empty (nullopt).
#include <array>
#include <cstdint>
#include <optional>

#include "algorithms/protocols/port.hpp"

namespace sgdsim::observation {

struct TraceRow {
  std::int64_t step = 0;
  double sim_time_s = 0;
  std::uint64_t bits_sent = 0;      // cumulative payload bits over all directed messages
  std::uint64_t bytes_on_wire = 0;  // cumulative payload + header bytes
  std::uint64_t messages = 0;
  std::optional<std::uint64_t> triggers;    // event firings; protocols with a trigger only
  double train_loss = 0;                    // of the average model
  std::optional<double> test_accuracy;      // of the average model; when there is a test set
  double consensus_distance = 0;            // (1/n) Σ ||x_i − x̄||²
  std::optional<double> suboptimality;      // train_loss − f*, when f* is known
  std::optional<double> compression_error;  // mean ||C(v) − v||² / ||v||² over vectors since the last row
  // Cumulative simulated seconds of each kind of host work (protocols::Work order), mean over nodes, and the
  // rest of each node's time: waiting for the network and for its neighbours.
  std::array<double, protocols::work_kinds> work_s{};
  double communication_s = 0;
  // Runs that can fail (network.receive_timeout > 0) only: cumulative sends that reached nobody, cumulative
  // receives that gave up, and the nodes down at sim_time_s.
  struct Failures {
    std::uint64_t messages_lost = 0;
    std::uint64_t receives_timed_out = 0;
    std::size_t nodes_down = 0;
  };
  std::optional<Failures> failures;
  // With eval.variance_draws > 0 only: the normalised variance of the averaged gradient without and with
  // compression (observation/estimator_variance.hpp); empty when the reference gradient is zero.
  struct Variance {
    std::optional<double> sampling, estimator;
    std::optional<double> estimator_nvar;  // NUQSGD's per-coordinate variance over the second moment
  };
  std::optional<Variance> variance;
};

}  // namespace sgdsim::observation
