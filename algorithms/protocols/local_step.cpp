#include "algorithms/protocols/local_step.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "algorithms/compression/simd.hpp"
#include "algorithms/protocols/offload.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

Schedule::Schedule(Spec& spec) : steps(spec.integer("steps")) {
  Spec lr = spec.variant("lr");
  learning_rate = learning::make_learning_rate(lr);
  Spec settings = spec.object("optimizer");
  optimizer = read_optimizer(settings);
}

LocalStep::LocalStep(const Environment& environment, const OptimizerSettings& optimizer)
    : environment_(environment),
      dimension_(environment.model->dimension()),
      gradient_{
          environment.prices->gradient(*environment.model, environment.model_spec, environment.batch_size),
          1.0},
      pooled_(environment.model->order_free() &&
              environment.model->flops_per_sample() * static_cast<double>(environment.batch_size) >=
                  min_pooled_flops),
      optimizer_(optimizer, environment.topology ? environment.topology->nodes : 1, dimension_) {
  update_ = {environment.prices->floats(Work::update),
             optimizer_.vector_passes() * static_cast<double>(dimension_)};
  const std::size_t state_dimension = environment.model->state_dimension();
  if (state_dimension > 0) {
    states_ = environment.states;
    if (!states_) {
      own_states_.assign(environment.topology->nodes, std::vector<float>(state_dimension));
      for (auto& state : own_states_) environment.model->initialize_state(state);
      states_ = &own_states_;
    }
    mixed_state_.resize(state_dimension);
  }
  for (std::size_t k = 0; k < environment.batch_size; ++k) identity_rows_.push_back(k);
  // Made here, not on first use: tasks of different nodes run at once.
  if (environment.augmentation.active()) {
    for (std::size_t k = 0; k < environment.topology->nodes; ++k)
      augment_streams_.push_back(Rng::stream(environment.seed, k, Purpose::augment));
  }
  inline_.batch.resize(environment.batch_size);
  inline_.gradient.resize(dimension_);
}

Rng LocalStep::batch_stream(std::size_t node) const {
  return Rng::stream(environment_.seed, node, Purpose::batch);
}

LocalStep::Slot& LocalStep::free_slot() {
  if (free_.empty()) {
    Slot& slot = slots_.emplace_back();
    slot.batch.resize(environment_.batch_size);
    slot.x.resize(dimension_);
    slot.gradient.resize(dimension_);
    return slot;
  }
  Slot* slot = free_.back();
  free_.pop_back();
  return *slot;
}

std::span<const float> LocalStep::gradient(std::size_t node, std::span<const float> x, Rng& batches,
                                           protocols::Port& port, bool charged) {
  if (charged) port.charge(gradient_);
  const learning::Shard& shard = (*environment_.shards)[node];
  if (shard.empty()) throw std::logic_error("node " + std::to_string(node) + " has no training samples");
  if (!pooled_ || in_flight_ == max_in_flight) {
    inline_.node = node;
    for (auto& index : inline_.batch) index = shard[batches.below(shard.size())];
    WallClock::Scope timer(environment_.clock, WallClock::Part::gradient);
    compute(inline_, x);
    return inline_.gradient;
  }
  Slot& slot = free_slot();
  ++in_flight_;
  // Back to the free slots however this call ends (an error, or SimGrid killing the actor while others run).
  struct Release {
    LocalStep& step;
    Slot& slot;
    ~Release() {
      --step.in_flight_;
      step.free_.push_back(&slot);
    }
  } release{*this, slot};
  slot.node = node;
  // Sampling with replacement keeps every step's batch independent of the others. Drawn here, in the node's
  // own order, like everything random.
  for (auto& index : slot.batch) index = shard[batches.below(shard.size())];
  // The model as it is now: other nodes (an AD-PSGD server) may change x while the task runs.
  std::copy(x.begin(), x.end(), slot.x.begin());
  // The wall time this thread spends on the gradient: computing it, or others', or waiting.
  offload(
      environment_, port, [this, &slot] { compute(slot, slot.x); }, WallClock::Part::gradient);
  return slot.gradient;
}

void LocalStep::compute(Slot& slot, std::span<const float> x) {
  const std::size_t node = slot.node;
  const learning::Dataset* data = environment_.train;
  std::span<const std::size_t> rows = slot.batch;
  learning::Dataset augmented;
  if (environment_.augmentation.active()) {
    // The node's own stream, drawn in its own step order: reproducible whatever the interleaving.
    augmented =
        learning::augmented_batch(*data, slot.batch, environment_.augmentation, augment_streams_[node]);
    data = &augmented;
    rows = identity_rows_;
  }
  // Models with state (BatchNorm) update the node's own running statistics.
  const double loss = states_ ? environment_.model->loss_and_gradient_with_state(x, (*states_)[node], *data,
                                                                                 rows, slot.gradient)
                              : environment_.model->loss_and_gradient(x, *data, rows, slot.gradient);
  // The step is filled in by whoever knows it (the scenario); the check is one pass over d floats.
  if (!std::isfinite(loss)) throw Diverged({"minibatch loss", -1, node, {}, -1});
  require_finite(slot.gradient, "gradient", node, -1);
}

void LocalStep::exchange_state(std::size_t node, const topology::Mixing& mixing, protocols::Port& port) {
  if (!states_ || !environment_.model->averages_state()) return;
  std::vector<float>& state = (*states_)[node];
  protocols::Bytes bytes(state.size() * sizeof(float));
  std::memcpy(bytes.data(), state.data(), bytes.size());
  const auto& neighbors = environment_.topology->neighbors[node];
  for (std::size_t j : neighbors) port.send(j, bytes);
  const auto self = static_cast<float>(mixing.self[node]);
  for (std::size_t c = 0; c < state.size(); ++c) mixed_state_[c] = self * state[c];
  for (std::size_t k = 0; k < neighbors.size(); ++k) {
    const std::optional<protocols::Bytes> message = port.receive(neighbors[k]);
    if (!message || message->size() != bytes.size())
      throw std::logic_error("BatchNorm statistics message of the wrong size");
    const auto w = static_cast<float>(mixing.neighbor[node][k]);
    const auto* values = reinterpret_cast<const float*>(message->data());
    for (std::size_t c = 0; c < state.size(); ++c) {
      float value;
      std::memcpy(&value, values + c, sizeof value);
      mixed_state_[c] += w * value;
    }
  }
  port.wait_sends();
  state.swap(mixed_state_);
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
  if (environment.probe && environment.states && environment.probe->wants(step))
    environment.probe->observe_state(step, node, (*environment.states)[node]);
  if (!environment.probe || !environment.probe->wants(step)) return;
  const double time = port.now();  // first: it completes the work charged so far
  take_counters(stats, time, port.counters());
  environment.probe->observe(step, node, x, stats);
}
}  // namespace sgdsim::protocols
