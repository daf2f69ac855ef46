// DiLoCo and local SGD (diloco.hpp).
#include "algorithms/protocols/diloco.hpp"

#include "common/error.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

Diloco::Diloco(Spec& spec, const Environment& environment)
    : environment_(environment),
      schedule_(spec),
      local_steps_(spec.integer("local_steps")),
      outer_lr_(static_cast<float>(spec.number("outer_lr"))),
      outer_momentum_(static_cast<float>(spec.number("outer_momentum"))),
      nesterov_(spec.boolean("nesterov")),
      local_(environment, schedule_.optimizer),
      encoders_(spec, environment.topology->nodes, local_.dimension(), environment.seed, environment.clock,
                *environment.prices, model_layout(*environment.model)),
      nodes_(environment.topology->nodes) {
  refuse_momentum_twice(spec, encoders_, schedule_.optimizer.momentum);
  const std::size_t n = environment.topology->nodes;
  const std::size_t d = local_.dimension();
  if (environment.model->averages_state())
    throw InputError(spec.where() +
                     ": the model's batch_norm \"averaged\" is implemented by the gossip protocols (dpsgd, "
                     "choco, sparq); DiLoCo's workers keep their BatchNorm statistics local");
  Spec collective = spec.variant("collective");
  collective_ =
      make_collective(collective, {n, d, &encoders_.compressor(), encoders_.decode_charge(),
                                   environment.prices.get(), environment.clock, spec.where("compressor"),
                                   encoders_.compressor().layout(), physical_network(environment)});
  const auto floats = static_cast<double>(d);
  delta_ = {environment.prices->floats(Work::update), 3 * floats};  // Δ = θ − x: reads two, writes one
  // m ← μm + Δ, θ ← θ − η_out(Δ + μm), x ← θ: reads three, writes three.
  outer_ = {environment.prices->floats(Work::update), 6 * floats};
  for (Node& node : nodes_) {
    node.x = initial_model(environment);
    node.start = node.x;
    for (std::vector<float>* v : {&node.delta, &node.momentum, &node.average, &node.own}) v->assign(d, 0.0f);
  }
}

void Diloco::outer_step(std::size_t i, protocols::Port& port) {
  Node& node = nodes_[i];
  const std::size_t d = node.x.size();
  for (std::size_t c = 0; c < d; ++c) node.delta[c] = node.start[c] - node.x[c];
  port.charge(delta_);
  encoders_.encode(i, node.delta, node.bytes, node.own, node.stats);
  port.charge(collective_->sends_message() ? encoders_.encode_charge() : encoders_.memory_charge());
  collective_->average(i, node.bytes, node.own, encoders_.stream(i), node.average, port);
  // The outer optimizer on the averaged pseudo-gradient; every replica computes the same floats.
  for (std::size_t c = 0; c < d; ++c) {
    const float delta = node.average[c];
    float step = delta;
    if (outer_momentum_ > 0) {
      node.momentum[c] = outer_momentum_ * node.momentum[c] + delta;
      step = nesterov_ ? delta + outer_momentum_ * node.momentum[c] : node.momentum[c];
    }
    node.start[c] -= outer_lr_ * step;
  }
  node.x = node.start;
  port.charge(outer_);
}

void Diloco::run(std::size_t i, protocols::Port& port) {
  Node& node = nodes_[i];
  Rng batches = local_.batch_stream(i);
  observe(environment_, 0, i, node.x, node.stats, port);
  for (std::int64_t t = 0; t < schedule_.steps; ++t) {
    local_.descend(i, node.x, schedule_.at(t), local_.gradient(i, node.x, batches, port));
    port.charge(local_.update());
    // A round ends every H inner steps, and at the last step (a shorter last round).
    if ((t + 1) % local_steps_ == 0 || t + 1 == schedule_.steps) outer_step(i, port);
    observe(environment_, t + 1, i, node.x, node.stats, port);
  }
}

namespace {
std::vector<keys::Key> diloco_keys() {
  std::vector<keys::Key> keys =
      Encoders::keys("The compressor of the workers' pseudo-gradients Δᵢ.", nlohmann::json{{"kind", "none"}});
  keys.push_back(keys::variant("collective", collectives(), "How the workers average their pseudo-gradients.")
                     .fallback_to({{"kind", "allgather"}}));
  keys.push_back(keys::integer("local_steps", "H, the inner steps of every worker between two averagings.")
                     .fallback_to(50)
                     .at_least(1));
  keys.push_back(keys::number("outer_lr", "η_out, the outer learning rate (the paper: 0.7; local SGD: 1).")
                     .fallback_to(0.7)
                     .above(0));
  keys.push_back(keys::number("outer_momentum", "μ, the outer momentum (the paper: 0.9; local SGD: 0).")
                     .fallback_to(0.9)
                     .at_least(0)
                     .below(1));
  keys.push_back(
      keys::boolean("nesterov", "Nesterov's form of the outer momentum (the paper's), else heavy ball.")
          .fallback_to(true));
  return keys;
}

const bool registered_diloco = protocols().add(
    {"diloco",
     "DiLoCo (Douillard et al. 2023): every worker takes local_steps inner steps with its own optimizer, "
     "then "
     "the workers average the pseudo-gradient θ − xᵢ with a collective and an outer SGD with Nesterov "
     "momentum "
     "updates the shared model θ. Local SGD is outer_lr 1, outer_momentum 0.",
     diloco_keys(),
     {}},
    {.build = [](Spec& spec,
                 const Environment& environment) { return std::make_unique<Diloco>(spec, environment); },
     // x_i, θ, Δ, the outer momentum, the average, the own decoded Δ, the collective's scratch and a message.
     .vectors_per_node = [](const nlohmann::json&, double) { return 8.0; }});
}  // namespace

}  // namespace sgdsim::protocols
