#include "algorithms/protocols/choco.hpp"

#include "algorithms/protocols/message_compressor.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

Choco::Choco(Spec& spec, const Environment& environment)
    : environment_(environment),
      steps_(spec.integer("steps", std::nullopt, 1)),
      learning_rate_(learning::make_learning_rate(spec)),
      gamma_(spec.number("consensus_step", std::nullopt, 0.0, 1.0)),
      consensus_first_(spec.choice("order", {"compress_first", "consensus_first"}, "compress_first") ==
                       "consensus_first"),
      mixing_(topology::make_mixing(*environment.topology,
                                    spec.choice("weights", {"metropolis", "uniform"}, "metropolis"))),
      local_(environment) {
  const bool verify = spec.boolean("verify_copies", false);
  gossip_ = std::make_unique<Gossip>(environment, mixing_, make_message_compressor(spec, "compressor", local_.dimension(), true),
                                     Silence::signal, verify);
}

void Choco::run(std::size_t i, sim::Port& port) {
  Gossip::Node& node = gossip_->node(i);
  Rng batches = local_.batch_stream(i);
  observe(environment_, 0, i, node.x, node.stats, port);
  for (std::int64_t t = 0; t < steps_; ++t) {
    const auto eta = static_cast<float>(learning_rate_->at(t));
    if (consensus_first_) {
      std::span<const float> g = local_.gradient(i, node.x, batches, port);
      gossip_->consensus(i, gamma_);
      axpy(node.x, -eta, g);
    } else {
      axpy(node.x, -eta, local_.gradient(i, node.x, batches, port));
    }
    gossip_->fire(i, node.x, port);
    gossip_->gather(i, port);
    if (!consensus_first_) gossip_->consensus(i, gamma_);
    observe(environment_, t + 1, i, node.x, node.stats, port);
  }
}

}  // namespace sgdsim::protocols
