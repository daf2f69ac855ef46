#include "algorithms/protocols/sparq.hpp"

#include "algorithms/protocols/message_compressor.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

Sparq::Sparq(Spec& spec, const Environment& environment)
    : environment_(environment),
      steps_(spec.integer("steps", std::nullopt, 1)),
      learning_rate_(learning::make_learning_rate(spec)),
      gamma_(spec.number("consensus_step", std::nullopt, 0.0, 1.0)),
      local_steps_(spec.integer("local_steps", 1, 1)),
      mixing_(topology::make_mixing(*environment.topology,
                                    spec.choice("weights", {"metropolis", "uniform"}, "metropolis"))),
      local_(environment) {
  Spec trigger = spec.object("trigger");
  trigger_ = std::make_unique<Trigger>(trigger);
  const Silence silence = spec.choice("silence", {"signal", "free"}, "signal") == "free" ? Silence::free
                                                                                         : Silence::signal;
  const bool verify = spec.boolean("verify_copies", false);
  gossip_ = std::make_unique<Gossip>(environment, mixing_, make_message_compressor(spec, "compressor", local_.dimension(), true), silence,
                                     verify);
}

void Sparq::run(std::size_t i, sim::Port& port) {
  Gossip::Node& node = gossip_->node(i);
  Rng batches = local_.batch_stream(i);
  observe(environment_, 0, i, node.x, node.stats, port);
  for (std::int64_t t = 0; t < steps_; ++t) {
    const double eta = learning_rate_->at(t);
    axpy(node.x, static_cast<float>(-eta), local_.gradient(i, node.x, batches, port));  // x now holds x_half
    if ((t + 1) % local_steps_ == 0) {
      double difference = 0;
      for (std::size_t c = 0; c < node.x.size(); ++c) {
        const double e = static_cast<double>(node.x[c]) - node.copy[c];
        difference += e * e;
      }
      if (trigger_->fires(difference, t, eta)) {
        node.stats.triggers += 1;
        gossip_->fire(i, node.x, port);
      } else {
        gossip_->stay_silent(i, port);
      }
      gossip_->gather(i, port);
      gossip_->consensus(i, gamma_);
    }
    observe(environment_, t + 1, i, node.x, node.stats, port);
  }
}

}  // namespace sgdsim::protocols
