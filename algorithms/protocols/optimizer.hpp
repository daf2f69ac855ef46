#pragma once
// The local optimizer every protocol applies to a node's own model: SGD, optionally with momentum (heavy
// ball or Nesterov) and weight decay (coupled, i.e. added to the gradient, or decoupled, i.e. a separate
// shrinking of the weights), or AdamW (Loshchilov and Hutter 2019; DiLoCo's inner optimizer). Each node
// keeps its own buffers (momentum; Adam's two moments and step count). The communicated vector never changes:
// protocols gossip or average what they always did (the model, or the gradient in data-parallel SGD); the
// momentum stays on the node (docs/protocols.md).
#include <cstddef>
#include <span>
#include <vector>

#include "common/keys.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::protocols {

struct OptimizerSettings {
  bool adamw = false;   // false: SGD (the keys below up to `decoupled`); true: AdamW (the rest)
  double momentum = 0;  // μ; 0: plain SGD
  bool nesterov = false;
  double weight_decay = 0;  // λ
  bool decoupled = false;   // true: x ← (1 − ηλ) x apart from the gradient step (SGDW); AdamW always is
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  bool bias_correction = true;
  bool plain() const { return !adamw && momentum == 0 && weight_decay == 0; }
};

// The `optimizer` object of every protocol.
const keys::Object& optimizer_keys();
OptimizerSettings read_optimizer(Spec& optimizer);

class Optimizer {
 public:
  Optimizer(const OptimizerSettings& settings, std::size_t nodes, std::size_t dimension);
  // One step of node `node` at rate `eta` with the (stochastic) gradient `g` at `x`:
  //   d = g (+ λx if coupled);  v ← μv + d;  d ← d + μv (Nesterov) or v (heavy ball);  x ← x − ηd,
  // and first x ← (1 − ηλ) x when decoupled. Plain SGD is exactly x ← x − ηg (bit-for-bit as before).
  // AdamW, at the node's step t = 1, 2, …: x ← (1 − ηλ) x;  m ← β₁m + (1 − β₁)g;  v ← β₂v + (1 − β₂)g²;
  // x ← x − (η / b₁) m / (√v / √b₂ + ε) with b = 1 − βᵗ (PyTorch's AdamW; b = 1 without bias correction).
  // `decay_at` (when not empty): the point at which coupled decay λx is taken instead of x (a protocol that
  // moves x between the gradient and the step, as CHOCO's consensus_first order does).
  void step(std::size_t node, std::span<float> x, double eta, std::span<const float> g,
            std::span<const float> decay_at = {});
  // Floats read and written per coordinate by step() (3 for plain SGD), for its simulated cost.
  double vector_passes() const;
  const OptimizerSettings& settings() const { return settings_; }

 private:
  OptimizerSettings settings_;
  std::size_t dimension_;
  void adamw_step(std::size_t node, std::span<float> x, double eta, std::span<const float> g);

  std::vector<std::vector<float>> velocity_;  // per node, allocated at its first step when μ > 0
  struct Moments {
    std::vector<float> m, v;
    std::int64_t steps = 0;
  };
  std::vector<Moments> moments_;  // per node, AdamW's
};

}  // namespace sgdsim::protocols
