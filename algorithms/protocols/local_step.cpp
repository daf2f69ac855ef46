#include "algorithms/protocols/local_step.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "algorithms/compression/simd.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

Schedule::Schedule(Spec& spec) : steps(spec.integer("steps")) {
  Spec lr = spec.variant("lr");
  learning_rate = learning::make_learning_rate(lr);
}

LocalStep::LocalStep(const Environment& environment)
    : environment_(environment),
      dimension_(environment.model->dimension()),
      flops_(environment.costs.charges(Work::gradient)
                 ? environment.model->flops_per_sample() * static_cast<double>(environment.batch_size)
                 : 0),
      update_s_(environment.costs.vector_s(Work::update, 3.0 * static_cast<double>(dimension_))),
      batch_(environment.batch_size),
      gradient_(dimension_) {}

Rng LocalStep::batch_stream(std::size_t node) const {
  return Rng::stream(environment_.seed, node, Purpose::batch);
}

std::span<const float> LocalStep::gradient(std::size_t node, std::span<const float> x, Rng& batches,
                                           protocols::Port& port) {
  port.compute(flops_);
  const learning::Shard& shard = (*environment_.shards)[node];
  if (shard.empty()) throw std::logic_error("node " + std::to_string(node) + " has no training samples");
  // Sampling with replacement keeps every step's batch independent of the others.
  for (auto& index : batch_) index = shard[batches.below(shard.size())];
  WallClock::Scope timer(environment_.clock, WallClock::Part::gradient);
  const double loss = environment_.model->loss_and_gradient(x, *environment_.train, batch_, gradient_);
  // The step is filled in by whoever knows it (the scenario); the check is one pass over d floats.
  if (!std::isfinite(loss)) throw Diverged({"minibatch loss", -1, node, {}, -1});
  require_finite(gradient_, "gradient", node, -1);
  return gradient_;
}

std::vector<float> initial_model(const Environment& environment) {
  std::vector<float> x(environment.model->dimension(), 0.0f);
  Rng init = Rng::stream(environment.seed, 0, Purpose::init);
  environment.model->initialize(x, init);
  return x;
}

void require_finite(std::span<const float> values, const char* quantity, std::size_t node,
                    std::int64_t step) {
  if (!compression::simd::any_non_finite(values.data(), values.size())) return;
  const auto bad = std::find_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); });
  const float value = *bad;
  throw Diverged({quantity, step, node,
                  "coordinate " + std::to_string(bad - values.begin()) + " is " +
                      (std::isnan(value) ? "NaN"
                       : value > 0       ? "+inf"
                                         : "-inf"),
                  -1});
}

void axpy(std::span<float> x, float a, std::span<const float> y) {
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += a * y[i];
}

double squared_norm(std::span<const float> x) {
  double sum = 0;
  for (float v : x) sum += static_cast<double>(v) * v;
  return sum;
}

}  // namespace sgdsim::protocols

namespace sgdsim::protocols {
void observe(const Environment& environment, std::int64_t step, std::size_t node, std::span<const float> x,
             NodeStats& stats, protocols::Port& port) {
  // Every protocol calls this at the end of every step: the one place where each node's model is checked.
  require_finite(x, "model", node, step);
  if (environment.probe) environment.probe->reached(step, node);
  if (!environment.probe || !environment.probe->wants(step)) return;
  stats.time = port.now();  // first: it completes the work charged so far
  const protocols::Counters& counters = port.counters();
  stats.payload_bytes = counters.payload_bytes;
  stats.wire_bytes = counters.wire_bytes;
  stats.messages = counters.messages;
  stats.work_s = counters.work_s;
  stats.lost = counters.lost;
  stats.timed_out = counters.timed_out;
  environment.probe->observe(step, node, x, stats);
}
}  // namespace sgdsim::protocols
