#include "algorithms/protocols/choco.hpp"

#include "algorithms/protocols/footprint.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

Choco::Choco(Spec& spec, const Environment& environment)
    : environment_(environment),
      schedule_(spec),
      consensus_first_(spec.string("order") == "consensus_first"),
      local_(environment, schedule_.optimizer),
      gossip_(spec, environment, Silence::signal) {
  refuse_momentum_twice(spec, gossip_.encoders(), schedule_.optimizer.momentum);
}

void Choco::run(std::size_t i, protocols::Port& port) {
  Gossip::Node& node = gossip_.node(i);
  Rng batches = local_.batch_stream(i);
  observe(environment_, 0, i, node.x, node.stats, port);
  for (std::int64_t t = 0; t < schedule_.steps; ++t) {
    const double eta = schedule_.at(t);
    if (consensus_first_) {
      std::span<const float> g = local_.gradient(i, node.x, batches, port);
      // The authors' code adds the weight decay λx to the gradient before the consensus step moves x: the
      // decay is taken at the x the gradient was taken at. (No Port call until descend: one scratch serves
      // every node.)
      if (local_.couples_decay()) before_consensus_.assign(node.x.begin(), node.x.end());
      gossip_.consensus(i);
      local_.descend(i, node.x, eta, g,
                     local_.couples_decay() ? before_consensus_ : std::span<const float>{});
      port.charge(gossip_.consensus_charge());
    } else {
      local_.descend(i, node.x, eta, local_.gradient(i, node.x, batches, port));
    }
    port.charge(local_.update());
    gossip_.fire(i, node.x, port);
    gossip_.gather(i, port);
    local_.exchange_state(i, gossip_.mixing(), port);
    if (!consensus_first_) {
      gossip_.consensus(i);
      port.charge(gossip_.consensus_charge());
    }
    observe(environment_, t + 1, i, node.x, node.stats, port);
  }
}

namespace {
std::vector<keys::Key> choco_keys() {
  std::vector<keys::Key> keys = Gossip::keys();
  keys.push_back(
      keys::choice("order", {"compress_first", "consensus_first"},
                   "\"compress_first\": the paper's Algorithm 1; \"consensus_first\": the order of "
                   "the authors' deep-learning code.")
          .fallback_to("compress_first"));
  return keys;
}

const bool registered_choco = protocols().add(
    {"choco",
     "CHOCO-SGD (Koloskova et al. 2019): compressed gossip of model differences against public copies x̂.",
     choco_keys(),
     {"survives_failures", "takes_late_messages"}},
    {.build = [](Spec& spec,
                 const Environment& environment) { return std::make_unique<Choco>(spec, environment); },
     .vectors_per_node = gossip_vectors_per_node});
}  // namespace

}  // namespace sgdsim::protocols
