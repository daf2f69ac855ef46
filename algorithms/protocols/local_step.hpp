#pragma once
// The local half of every protocol: draw a minibatch from the node's shard, charge its flops to the simulated
// host, compute the gradient. The gradient is computed by the environment's worker pool while the other
// nodes ready at the same simulated instant run (Port::let_others_run), so the real math of many nodes
// overlaps; each gradient in flight has its own slot (inputs copied, output), and a caller consumes its
// gradient before its next Port call, when the slot may be reused.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "algorithms/protocols/optimizer.hpp"
#include "algorithms/protocols/protocol.hpp"
#include "common/rng.hpp"

namespace sgdsim::protocols {

// How long a protocol runs and at which rate: the `steps` and `lr` keys every protocol has.
struct Schedule {
  explicit Schedule(Spec& spec);
  std::int64_t steps;
  std::unique_ptr<learning::LearningRate> learning_rate;
  OptimizerSettings optimizer;  // the `optimizer` key
  double at(std::int64_t t) const { return learning_rate->at(t); }
};

class LocalStep {
 public:
  // Gradients in flight at once, at most (each holds a copy of its model and its gradient): bounds their
  // memory. A fixed number, so that which calls let the others run (those that find one of these slots free)
  // does not depend on the thread count.
  static constexpr std::size_t max_in_flight = 64;
  // Gradients of fewer flops are computed at once by the calling node: handing them to another thread would
  // cost more than they do (a thread wake-up and a simcall against a few microseconds of math).
  static constexpr double min_pooled_flops = 1e5;
  explicit LocalStep(const Environment& environment, const OptimizerSettings& optimizer = {});
  // The minibatch stream of one node.
  Rng batch_stream(std::size_t node) const;
  // Charges the minibatch's gradient on `port` (simulated compute time), then returns the minibatch gradient
  // at `x` as it was when called. The returned span stays valid until the next call on any node. Lets the
  // other nodes run meanwhile (at the same simulated time), the same way whatever the pool's thread count, so
  // that the simulation, its traces and its errors do not depend on that count.
  // With `charged` false the caller charges the gradient's work itself (gradient_charge(), e.g. its backward
  // pass layer by layer).
  std::span<const float> gradient(std::size_t node, std::span<const float> x, Rng& batches,
                                  protocols::Port& port, bool charged = true);
  // The charge of one minibatch gradient (forward and backward).
  const Charge& gradient_charge() const { return gradient_; }
  std::size_t dimension() const { return dimension_; }
  // The local optimizer's step of node `node` (optimizer.hpp); x −= η g for plain SGD.
  void descend(std::size_t node, std::span<float> x, double eta, std::span<const float> g,
               std::span<const float> decay_at = {}) {
    optimizer_.step(node, x, eta, g, decay_at);
  }
  // True when descend() adds λx to the gradient (coupled weight decay).
  bool couples_decay() const {
    return optimizer_.settings().weight_decay > 0 && !optimizer_.settings().decoupled;
  }
  // The charge of descend() (plain SGD reads two vectors and writes one).
  const Charge& update() const { return update_; }
  // Models with state (BatchNorm) whose option says "averaged": node i sends its state to its neighbours
  // (fp32) and replaces it by Σ_j w_ij s_j. Gossip protocols call it once per round of gossip; a no-op
  // otherwise.
  void exchange_state(std::size_t node, const topology::Mixing& mixing, protocols::Port& port);

 private:
  const Environment& environment_;
  std::size_t dimension_;
  Charge gradient_;  // one minibatch gradient
  // Whether gradients may go to the pool: an order-free model and min_pooled_flops (never the thread count).
  bool pooled_;
  Charge update_;
  // One gradient computation: the task's own copies of its inputs, and its output.
  struct Slot {
    std::size_t node = 0;
    std::vector<std::size_t> batch;
    std::vector<float> x;  // unused by the inline slot, which reads the caller's x at once
    std::vector<float> gradient;
  };
  Slot& free_slot();
  // Augmentation, loss and gradient of `slot` at `x`, with the finiteness checks (any thread).
  void compute(Slot& slot, std::span<const float> x);

  std::deque<Slot> slots_;  // made on first use; a deque keeps them in place as it grows
  std::vector<Slot*> free_;
  std::size_t in_flight_ = 0;
  Slot inline_;  // small gradients, or max_in_flight in flight: computed at once, without letting others run
  Optimizer optimizer_;
  std::vector<std::vector<float>> own_states_;  // when the environment holds none
  std::vector<std::vector<float>>* states_ = nullptr;
  std::vector<float> mixed_state_;
  std::vector<Rng> augment_streams_;        // per node, when augmenting (one task per node at a time)
  std::vector<std::size_t> identity_rows_;  // 0 .. batch_size − 1: the rows of an augmented batch
};

// The initial model, the same on every node (stream (seed, 0, init)).
std::vector<float> initial_model(const Environment& environment);

// x += a * y
void axpy(std::span<float> x, float a, std::span<const float> y);
double squared_norm(std::span<const float> x);
// Throws Diverged naming `quantity`, the node, the step (-1: not known here) and the first bad coordinate
// when `values` holds an infinite or NaN value.
void require_finite(std::span<const float> values, const char* quantity, std::size_t node, std::int64_t step);

}  // namespace sgdsim::protocols

namespace sgdsim::protocols {
// Hands node i's model to the probe when `step` is an evaluation step, with its cumulative counters.
void observe(const Environment& environment, std::int64_t step, std::size_t node, std::span<const float> x,
             NodeStats& stats, protocols::Port& port);
}  // namespace sgdsim::protocols
