#include "observation/schedule_recorder.hpp"

namespace sgdsim::observation {
namespace {

// Logs every operation, then does it on the port underneath.
class RecordingPort final : public protocols::Port {
 public:
  RecordingPort(protocols::Port& port, OperationLog& log) : port_(port), log_(log) {}
  std::size_t self() const override { return port_.self(); }
  void send(std::size_t to, protocols::Bytes bytes) override {
    log_.send(to, bytes.size());
    port_.send(to, std::move(bytes));
  }
  void send_silence(std::size_t to) override {
    log_.silence(to);
    port_.send_silence(to);
  }
  protocols::Received receive_or_miss(std::size_t from) override {
    log_.receive(from);
    return port_.receive_or_miss(from);
  }
  std::vector<std::size_t> wait_sends() override {
    log_.plain(Operation::wait_sends);
    return port_.wait_sends();
  }
  using Port::charge;
  void charge(std::span<const protocols::Charge> terms) override {
    if (terms.empty()) return;
    log_.charge(terms);
    port_.charge(terms);
  }
  void start_background(std::span<const protocols::Charge> pieces) override {
    log_.background(pieces);
    port_.start_background(pieces);
  }
  void await_background(std::size_t count) override {
    log_.await_background(count);
    port_.await_background(count);
  }
  void let_others_run() override {
    log_.plain(Operation::yield);
    port_.let_others_run();
  }
  double now() override {
    log_.plain(Operation::now);
    return port_.now();
  }
  const protocols::Counters& counters() const override { return port_.counters(); }

 private:
  protocols::Port& port_;
  OperationLog& log_;
};

}  // namespace

ScheduleRecorder::ScheduleRecorder(std::size_t nodes, protocols::Probe& observer)
    : observer_(observer), logs_(nodes) {}

std::unique_ptr<protocols::Port> ScheduleRecorder::wrap(std::size_t node, protocols::Port& port) {
  return std::make_unique<RecordingPort>(port, logs_.at(node));
}

void ScheduleRecorder::observe(std::int64_t step, std::size_t node, std::span<const float> model,
                               const protocols::NodeStats& stats) {
  logs_.at(node).observe({step, stats.triggers, stats.compression_error, stats.compressions});
  observer_.observe(step, node, model, stats);
}

Schedule ScheduleRecorder::finish(std::string resolved, std::string base_dir, const RunShape& shape,
                                  const protocols::PriceTable& prices, std::vector<TraceRow> rows) {
  Schedule schedule;
  schedule.resolved = std::move(resolved);
  schedule.base_dir = std::move(base_dir);
  schedule.shape = shape;
  for (const protocols::Price& price : prices.prices())
    schedule.prices.push_back({price.work, price.unit, price.subject.dump()});
  schedule.rows = std::move(rows);
  schedule.nodes = std::move(logs_);
  logs_.clear();
  return schedule;
}

}  // namespace sgdsim::observation
