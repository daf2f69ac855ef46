#pragma once
// The observer: when every node has reached an evaluation step it evaluates the average model and writes a
// trace row. It reads node state handed to it; it costs no simulated time and no bits, and changes nothing.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <vector>

#include "algorithms/learning/dataset.hpp"
#include "algorithms/learning/model.hpp"
#include "algorithms/protocols/probe.hpp"
#include "common/wall_clock.hpp"
#include "observation/blow_up.hpp"
#include "observation/estimator_variance.hpp"
#include "observation/node_sums.hpp"
#include "observation/outputs.hpp"
#include "observation/trace.hpp"

namespace sgdsim::observation {

struct ObserverOptions {
  std::int64_t every = 100;               // evaluate at step 0, every `every` steps, and at the last step
  std::int64_t steps = 0;                 // the run's last step
  std::vector<std::size_t> train_subset;  // samples for train_loss; empty = the whole training set
  bool has_trigger = false;               // fill the triggers column
  bool progress = false;                  // one status line on stderr per row
  // Runs that can fail: the failure columns, with the number of nodes down at a simulated time.
  std::function<std::size_t(double)> nodes_down;
  // Data-parallel runs with eval.variance_draws > 0: the estimator's variance at every row.
  std::shared_ptr<const EstimatorVariance> variance;
  BlowUpRule blow_up;  // eval.blow_up (off by default here; scenarios default it on)
};

class Observer : public protocols::Probe {
 public:
  Observer(std::size_t nodes, const learning::Model& model, const learning::Problem& problem,
           ObserverOptions options, std::ostream& trace, WallClock* clock);

  bool wants(std::int64_t step) const override;
  void observe(std::int64_t step, std::size_t node, std::span<const float> model,
               const protocols::NodeStats& stats) override;

  void reached(std::int64_t step, std::size_t node) override;
  // BatchNorm statistics: the average model is evaluated with the mean of the nodes' statistics.
  void observe_state(std::int64_t step, std::size_t node, std::span<const float> state) override;

  const TraceRow& last() const { return last_; }
  // Every row written so far (a run's schedule keeps them: schedule.hpp).
  const std::vector<TraceRow>& rows() const { return rows_; }
  // Which of the conditional columns the trace has.
  const RunShape& shape() const { return shape_; }
  // The last step `node` completed (0 before its first step).
  std::int64_t reached(std::size_t node) const { return reached_[node]; }
  // The latest stats each node reported (its totals at the end of a completed run).
  const std::vector<protocols::NodeStats>& node_stats() const { return latest_; }

 private:
  // One node's report at an evaluation step, held until every node below it has been folded in.
  struct Arrival {
    std::vector<float> model;
    std::vector<float> state;
    protocols::NodeStats stats;
  };
  // Running mean and spread of the node models (Welford), so that identical models give exactly zero. Nodes
  // are folded in node order, whatever order they arrive in: the sums (floating point) then do not depend on
  // the simulated timing, so a run re-timed under another network has the same learning columns.
  struct Pending {
    std::vector<double> mean;
    std::vector<double> state_sum;         // Σ_i s_i of the nodes' model state (empty without state)
    double spread = 0;                     // Σ_i ||x_i − x̄||²
    std::size_t count = 0;                 // nodes folded in: 0 .. count-1
    NodeSums sums;                         // the counting and timing columns' sums
    std::map<std::size_t, Arrival> early;  // arrived before their turn
    std::map<std::size_t, std::vector<float>> states;  // model states handed before their node's observe()
  };
  void fold(Pending& pending, std::span<const float> model, std::span<const float> state,
            const protocols::NodeStats& stats);
  void complete(std::int64_t step, Pending& pending);

  std::size_t nodes_;
  const learning::Model& model_;
  const learning::Problem& problem_;
  ObserverOptions options_;
  RunShape shape_;
  std::ostream& trace_;
  WallClock* clock_;
  std::map<std::int64_t, Pending> pending_;
  std::vector<protocols::NodeStats> latest_;
  std::vector<std::int64_t> reached_;
  TraceRow last_;
  std::vector<TraceRow> rows_;
  double last_compression_error_ = 0;
  std::uint64_t last_compressions_ = 0;
  BlowUpWatch blow_up_;
};

}  // namespace sgdsim::observation
