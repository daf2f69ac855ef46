#include "algorithms/protocols/sparq.hpp"

#include "algorithms/protocols/footprint.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

namespace {
Silence read_silence(Spec& spec) {
  return spec.string("silence") == "free" ? Silence::free : Silence::signal;
}
Trigger read_trigger(Spec& spec) {
  Spec trigger = spec.variant("trigger");
  return make_trigger(trigger);
}
}  // namespace

Sparq::Sparq(Spec& spec, const Environment& environment)
    : environment_(environment),
      schedule_(spec),
      local_steps_(spec.integer("local_steps")),
      trigger_(read_trigger(spec)),
      local_(environment, schedule_.optimizer),
      gossip_(spec, environment, read_silence(spec)),
      trigger_norm_{environment.prices->floats(Work::mixing),
                    2.0 * static_cast<double>(gossip_.dimension())} {
  refuse_momentum_twice(spec, gossip_.encoders(), schedule_.optimizer.momentum);
}

void Sparq::run(std::size_t i, protocols::Port& port) {
  Gossip::Node& node = gossip_.node(i);
  Rng batches = local_.batch_stream(i);
  observe(environment_, 0, i, node.x, node.stats, port);
  for (std::int64_t t = 0; t < schedule_.steps; ++t) {
    const double eta = schedule_.at(t);
    local_.descend(i, node.x, eta, local_.gradient(i, node.x, batches, port));  // x now holds x_half
    port.charge(local_.update());
    if ((t + 1) % local_steps_ == 0) {
      double difference = 0;
      for (std::size_t c = 0; c < node.x.size(); ++c) {
        const double e = static_cast<double>(node.x[c]) - node.copy[c];
        difference += e * e;
      }
      port.charge(trigger_norm_);  // the trigger's norm reads x and x̂
      if (trigger_.fires(difference, t, eta)) {
        node.stats.triggers += 1;
        gossip_.fire(i, node.x, port);
      } else {
        gossip_.stay_silent(i, port);
      }
      gossip_.gather(i, port);
      local_.exchange_state(i, gossip_.mixing(), port);
      gossip_.consensus(i);
      port.charge(gossip_.consensus_charge());
    }
    observe(environment_, t + 1, i, node.x, node.stats, port);
  }
}

namespace {
std::vector<keys::Key> sparq_keys() {
  std::vector<keys::Key> keys = Gossip::keys();
  keys.push_back(keys::integer("local_steps", "H: local steps between synchronization indices.")
                     .fallback_to(1)
                     .at_least(1)
                     .in_unit("steps"));
  keys.push_back(
      keys::variant("trigger", triggers(), "The event trigger's threshold schedule c_t.").may_be_absent());
  keys.push_back(keys::choice("silence", {"signal", "free"},
                              "How a node that does not fire tells its neighbours: \"signal\", a real 1-byte "
                              "message; \"free\", nothing sent and known by fiat (the papers' bit counts).")
                     .fallback_to("signal"));
  return keys;
}

const bool registered_sparq = protocols().add(
    {"sparq",
     "SPARQ-SGD (Singh et al.): local steps, then compressed gossip only when the event trigger fires.",
     sparq_keys(),
     {"fires_triggers", "survives_failures", "takes_late_messages"}},
    {.build = [](Spec& spec,
                 const Environment& environment) { return std::make_unique<Sparq>(spec, environment); },
     .vectors_per_node = gossip_vectors_per_node});
}  // namespace

}  // namespace sgdsim::protocols
