// BEER: gradient tracking with compressed public copies (beer.hpp).
#include "algorithms/protocols/beer.hpp"

#include "algorithms/compression/norms.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

Beer::Beer(Spec& spec, const Environment& environment)
    : environment_(environment),
      schedule_(spec),
      gamma_(spec.number("consensus_step")),
      mixing_(topology::make_mixing(*environment.topology, spec.string("weights"))),
      local_(environment, schedule_.optimizer),
      compressor_(make_message_compressor(spec, "compressor", environment.model->dimension(),
                                          *environment.prices, model_layout(*environment.model))),
      nodes_(environment.topology->nodes) {
  if (!schedule_.optimizer.plain())
    spec.fail("optimizer",
              "BEER steps along its tracker v_i, which momentum or weight decay would no longer "
              "keep equal on average to the mean gradient; leave the optimizer plain");
  const std::size_t d = local_.dimension();
  const auto floats = static_cast<double>(d);
  PriceTable& prices = *environment.prices;
  consensus_ = {prices.floats(Work::mixing), 5 * floats};  // x += γ (m − h) − η v: reads four, writes one
  own_update_ = {prices.floats(Work::mixing), 9 * floats};  // the difference, the own copy and m updates
  apply_ = {prices.floats(Work::mixing), 3 * floats};       // m += w q
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    Node& node = nodes_[i];
    node.x = initial_model(environment);
    node.v.assign(d, 0.0f);
    node.gradient.assign(d, 0.0f);
    for (Copies* copies : {&node.h, &node.g}) {
      copies->copy.assign(d, 0.0f);
      copies->mixed.assign(d, 0.0f);
      copies->state = compressor_.compressor->make_state(d);
    }
    node.difference.assign(d, 0.0f);
    node.q.assign(d, 0.0f);
    node.rng = Rng::stream(environment.seed, i, Purpose::compression);
  }
}

void Beer::send_update(std::size_t i, std::span<const float> target, Copies& copies, Port& port) {
  Node& node = nodes_[i];
  for (std::size_t c = 0; c < target.size(); ++c) node.difference[c] = target[c] - copies.copy[c];
  {
    WallClock::Scope timer(environment_.clock, WallClock::Part::compression);
    node.bytes.clear();
    compressor_.compressor->encode_with(node.difference, node.rng, copies.state.get(), node.bytes);
    // The sender decodes its own bytes, as every receiver will.
    compressor_.compressor->decode_into(node.bytes, node.q);
  }
  const compression::SquaredError terms = compression::squared_error(node.difference, node.q);
  if (terms.norm > 0) {
    node.stats.compression_error += terms.error / terms.norm;
    node.stats.compressions += 1;
  }
  axpy(copies.copy, 1.0f, node.q);
  axpy(copies.mixed, static_cast<float>(mixing_.self[i]), node.q);
  port.charge(own_update_);
  port.charge(compressor_.encode);
  for (std::size_t j : environment_.topology->neighbors[i]) port.send(j, node.bytes);
}

void Beer::receive_updates(std::size_t i, Copies& copies, Port& port) {
  Node& node = nodes_[i];
  const auto& neighbors = environment_.topology->neighbors[i];
  for (std::size_t k = 0; k < neighbors.size(); ++k) {
    std::optional<Bytes> received = port.receive(neighbors[k]);
    if (!received) throw std::logic_error("BEER received no message");
    {
      WallClock::Scope timer(environment_.clock, WallClock::Part::compression);
      compressor_.compressor->decode_into(*received, node.q);
    }
    axpy(copies.mixed, static_cast<float>(mixing_.neighbor[i][k]), node.q);
    port.charge(compressor_.decode);
    port.charge(apply_);
  }
}

void Beer::run(std::size_t i, protocols::Port& port) {
  Node& node = nodes_[i];
  const std::size_t d = node.x.size();
  const auto gamma = static_cast<float>(gamma_);
  Rng batches = local_.batch_stream(i);
  const std::span<const float> first = local_.gradient(i, node.x, batches, port);
  node.gradient.assign(first.begin(), first.end());
  node.v = node.gradient;
  observe(environment_, 0, i, node.x, node.stats, port);
  for (std::int64_t t = 0; t < schedule_.steps; ++t) {
    const auto eta = static_cast<float>(schedule_.at(t));
    for (std::size_t c = 0; c < d; ++c)
      node.x[c] += gamma * (node.h.mixed[c] - node.h.copy[c]) - eta * node.v[c];
    port.charge(consensus_);
    // The model's update goes out before the gradient, which it overlaps on the network.
    send_update(i, node.x, node.h, port);
    const std::span<const float> fresh = local_.gradient(i, node.x, batches, port);
    for (std::size_t c = 0; c < d; ++c) {
      node.v[c] += gamma * (node.g.mixed[c] - node.g.copy[c]) + (fresh[c] - node.gradient[c]);
      node.gradient[c] = fresh[c];
    }
    port.charge(consensus_);
    require_finite(node.v, "tracker", i, t + 1);
    send_update(i, node.v, node.g, port);
    receive_updates(i, node.h, port);
    receive_updates(i, node.g, port);
    port.wait_sends();
    local_.exchange_state(i, mixing_, port);
    observe(environment_, t + 1, i, node.x, node.stats, port);
  }
}

namespace {
const bool registered_beer = protocols().add(
    {"beer",
     "BEER (Zhao et al. 2022): gradient tracking with compressed messages. Every node sends C(x_i − h_i) and "
     "C(v_i − g_i), updates to public copies h_i and g_i of its model and tracker that its neighbours hold, "
     "and steps along the tracker v_i.",
     {topology::weights_key(), topology::graph_key(),
      keys::number("consensus_step", "γ, the consensus step size of both the models and the trackers.")
          .between(0, 1),
      keys::variant("compressor", compression::compressors(), "The compressor of both copy updates.")},
     {}},
    {.build = [](Spec& spec,
                 const Environment& environment) { return std::make_unique<Beer>(spec, environment); },
     // x_i, v_i, its last gradient, the two copies and their two mixes, and the scratch difference and
     // message.
     .vectors_per_node = [](const nlohmann::json&, double) { return 9.0; }});
}  // namespace

}  // namespace sgdsim::protocols
