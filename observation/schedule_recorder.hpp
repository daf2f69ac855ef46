#pragma once
// Records a live run's schedule (schedule.hpp): a port that logs each node's operations and passes them on,
// and a probe that logs where each node handed its model to the observer. Both change nothing: the run is the
// same with or without them.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/protocols/port.hpp"
#include "algorithms/protocols/prices.hpp"
#include "algorithms/protocols/probe.hpp"
#include "observation/schedule.hpp"

namespace sgdsim::observation {

class ScheduleRecorder final : public protocols::Probe {
 public:
  // Markers go to the node logs, everything goes on to `observer`.
  ScheduleRecorder(std::size_t nodes, protocols::Probe& observer);
  // A port that records node `node`'s operations on `port`.
  std::unique_ptr<protocols::Port> wrap(std::size_t node, protocols::Port& port);

  bool wants(std::int64_t step) const override { return observer_.wants(step); }
  void observe(std::int64_t step, std::size_t node, std::span<const float> model,
               const protocols::NodeStats& stats) override;
  void observe_state(std::int64_t step, std::size_t node, std::span<const float> state) override {
    observer_.observe_state(step, node, state);
  }
  void reached(std::int64_t step, std::size_t node) override { observer_.reached(step, node); }

  // The schedule of the completed run: the logs with what the run's context says.
  Schedule finish(std::string resolved, std::string base_dir, const RunShape& shape,
                  const protocols::PriceTable& prices, std::vector<TraceRow> rows);

 private:
  protocols::Probe& observer_;
  std::vector<OperationLog> logs_;
};

}  // namespace sgdsim::observation
