#include "algorithms/protocols/optimizer.hpp"

#include "common/spec.hpp"

namespace sgdsim::protocols {

const keys::Object& optimizer_keys() {
  static const keys::Object object{
      "optimizer",
      "The local optimizer of every node (each node keeps its own momentum buffer).",
      {keys::number("momentum", "μ: 0 is plain SGD; 0.9 is the ResNet recipe's.")
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
           .fallback_to(false)}};
  return object;
}

OptimizerSettings read_optimizer(Spec& spec) {
  OptimizerSettings s;
  s.momentum = spec.number("momentum");
  s.nesterov = spec.boolean("nesterov");
  s.weight_decay = spec.number("weight_decay");
  s.decoupled = spec.boolean("decoupled");
  if (s.nesterov && s.momentum == 0) spec.fail("nesterov", "needs a momentum above 0");
  spec.finish();
  return s;
}

Optimizer::Optimizer(const OptimizerSettings& settings, std::size_t nodes, std::size_t dimension)
    : settings_(settings), dimension_(dimension), velocity_(settings.momentum > 0 ? nodes : 0) {}

double Optimizer::vector_passes() const {
  double passes = 3;  // read x and g, write x
  if (settings_.weight_decay > 0) passes += settings_.decoupled ? 2 : 1;
  if (settings_.momentum > 0) passes += settings_.nesterov ? 4 : 3;
  return passes;
}

void Optimizer::step(std::size_t node, std::span<float> x, double eta, std::span<const float> g,
                     std::span<const float> decay_at) {
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

}  // namespace sgdsim::protocols
