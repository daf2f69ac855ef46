#include "algorithms/protocols/optimizer.hpp"

#include <cmath>

#include "common/spec.hpp"

namespace sgdsim::protocols {

const keys::Object& optimizer_keys() {
  static const keys::Object object{
      "optimizer",
      "The local optimizer of every node (each node keeps its own momentum buffer, or Adam's moments).",
      {keys::choice(
           "kind", {"sgd", "adamw", "onebit_adam"},
           "\"sgd\": SGD with optional momentum and weight decay (momentum, nesterov, weight_decay, "
           "decoupled); \"adamw\": AdamW (Loshchilov and Hutter 2019, as PyTorch's; DiLoCo's inner "
           "optimizer): beta1, beta2, epsilon, bias_correction, and weight_decay, always decoupled; "
           "\"onebit_adam\": 1-bit Adam (Tang et al. 2021), for data_parallel only, where it runs the "
           "protocol \"onebit_adam\" (the same method, another spelling: docs/protocols.md): "
           "warmup_steps, beta1, beta2, epsilon.")
           .fallback_to("sgd"),
       keys::number("momentum", "μ: 0 is plain SGD; 0.9 is the ResNet recipe's.")
           .fallback_to(0)
           .between(0, 1),
       keys::boolean("nesterov",
                     "Nesterov's momentum (x ← x − η(d + μv)) instead of the heavy ball (x ← x − ηv).")
           .fallback_to(false),
       keys::number("weight_decay",
                    "λ: weight decay of the optimizer, on top of the model's l2 (which is part of the loss).")
           .fallback_to(0)
           .at_least(0),
       keys::boolean("decoupled",
                     "true: decoupled weight decay x ← (1 − ηλ) x (Loshchilov and Hutter's SGDW); false: "
                     "coupled, λx added to the gradient before the momentum (PyTorch's SGD).")
           .fallback_to(false),
       keys::integer("warmup_steps",
                     "1-bit Adam's T_w: steps of full-precision Adam (fp32 gradients averaged by the "
                     "collective) before the variance is frozen and the momentum is sent in 1 bit per "
                     "coordinate (at least 1: a variance frozen at 0 would divide by ε).")
           .fallback_to(100)
           .at_least(1),
       keys::number("beta1", "Adam's β₁ (adamw, onebit_adam), the decay of the first moment m.")
           .fallback_to(0.9)
           .at_least(0)
           .below(1),
       keys::number("beta2",
                    "Adam's β₂ (adamw, onebit_adam), the decay of the second moment v (1-bit Adam "
                    "freezes v after the warm-up).")
           .fallback_to(0.999)
           .at_least(0)
           .below(1),
       keys::number("epsilon", "Adam's ε (adamw, onebit_adam), added to √v.").fallback_to(1e-8).above(0),
       keys::boolean("bias_correction",
                     "AdamW divides m by 1 − β₁ᵗ and v by 1 − β₂ᵗ (PyTorch's); false: it does not (as 1-bit "
                     "Adam's paper and DeepSpeed's code write Adam).")
           .fallback_to(true)}};
  return object;
}

OptimizerSettings read_optimizer(Spec& spec) {
  OptimizerSettings s;
  const std::string kind = spec.string("kind");
  // data_parallel's onebit_adam was spelled out as the protocol before any protocol reads its optimizer
  // (onebit_adam_spelling.cpp); anywhere else it has no meaning.
  if (kind == "onebit_adam")
    spec.fail("kind",
              "\"onebit_adam\" is an optimizer of \"data_parallel\" only (there it runs the protocol "
              "\"onebit_adam\", which changes what is sent); with this protocol use \"sgd\" or \"adamw\"");
  s.adamw = kind == "adamw";
  s.weight_decay = spec.number("weight_decay");
  if (s.adamw) {
    s.decoupled = true;
    s.beta1 = spec.number("beta1");
    s.beta2 = spec.number("beta2");
    s.epsilon = spec.number("epsilon");
    s.bias_correction = spec.boolean("bias_correction");
    spec.finish();
    return s;
  }
  s.momentum = spec.number("momentum");
  s.nesterov = spec.boolean("nesterov");
  s.decoupled = spec.boolean("decoupled");
  if (s.nesterov && s.momentum == 0) spec.fail("nesterov", "needs a momentum above 0");
  spec.finish();
  return s;
}

Optimizer::Optimizer(const OptimizerSettings& settings, std::size_t nodes, std::size_t dimension)
    : settings_(settings),
      dimension_(dimension),
      velocity_(settings.momentum > 0 ? nodes : 0),
      moments_(settings.adamw ? nodes : 0) {}

double Optimizer::vector_passes() const {
  double passes = 3;                                                              // read x and g, write x
  if (settings_.adamw) return passes + 4 + (settings_.weight_decay > 0 ? 2 : 0);  // m and v: read, write
  if (settings_.weight_decay > 0) passes += settings_.decoupled ? 2 : 1;
  if (settings_.momentum > 0) passes += settings_.nesterov ? 4 : 3;
  return passes;
}

void Optimizer::step(std::size_t node, std::span<float> x, double eta, std::span<const float> g,
                     std::span<const float> decay_at) {
  if (settings_.adamw) return adamw_step(node, x, eta, g);
  const auto rate = static_cast<float>(-eta);
  if (settings_.plain()) {
    for (std::size_t c = 0; c < x.size(); ++c) x[c] += rate * g[c];
    return;
  }
  const auto lambda = static_cast<float>(settings_.weight_decay);
  const bool coupled = lambda != 0 && !settings_.decoupled;
  const std::span<const float> at = decay_at.empty() ? std::span<const float>(x) : decay_at;
  if (lambda != 0 && settings_.decoupled) {
    const auto shrink = static_cast<float>(1.0 - eta * settings_.weight_decay);
    for (float& v : x) v *= shrink;
  }
  if (settings_.momentum == 0) {
    for (std::size_t c = 0; c < x.size(); ++c) x[c] += rate * (coupled ? g[c] + lambda * at[c] : g[c]);
    return;
  }
  std::vector<float>& v = velocity_[node];
  if (v.empty()) v.assign(dimension_, 0.0f);
  const auto mu = static_cast<float>(settings_.momentum);
  for (std::size_t c = 0; c < x.size(); ++c) {
    const float d = coupled ? g[c] + lambda * at[c] : g[c];
    v[c] = mu * v[c] + d;
    x[c] += rate * (settings_.nesterov ? d + mu * v[c] : v[c]);
  }
}

void Optimizer::adamw_step(std::size_t node, std::span<float> x, double eta, std::span<const float> g) {
  Moments& state = moments_[node];
  if (state.m.empty()) {
    state.m.assign(dimension_, 0.0f);
    state.v.assign(dimension_, 0.0f);
  }
  const auto t = static_cast<double>(++state.steps);
  if (settings_.weight_decay > 0) {
    const auto shrink = static_cast<float>(1.0 - eta * settings_.weight_decay);
    for (float& v : x) v *= shrink;
  }
  const double b1 = settings_.bias_correction ? 1.0 - std::pow(settings_.beta1, t) : 1.0;
  const double b2 = settings_.bias_correction ? 1.0 - std::pow(settings_.beta2, t) : 1.0;
  const auto beta1 = static_cast<float>(settings_.beta1), beta2 = static_cast<float>(settings_.beta2);
  const auto rate = static_cast<float>(-eta / b1), root_b2 = static_cast<float>(std::sqrt(b2));
  const auto epsilon = static_cast<float>(settings_.epsilon);
  for (std::size_t c = 0; c < x.size(); ++c) {
    state.m[c] = beta1 * state.m[c] + (1.0f - beta1) * g[c];
    state.v[c] = beta2 * state.v[c] + (1.0f - beta2) * g[c] * g[c];
    x[c] += rate * state.m[c] / (std::sqrt(state.v[c]) / root_b2 + epsilon);
  }
}

}  // namespace sgdsim::protocols
