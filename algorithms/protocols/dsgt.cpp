// DSGT: gradient tracking with exact fp32 messages (dsgt.hpp).
#include "algorithms/protocols/dsgt.hpp"

#include "algorithms/protocols/offload.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

Dsgt::Dsgt(Spec& spec, const Environment& environment)
    : environment_(environment),
      schedule_(spec),
      adapt_first_(spec.string("order") == "adapt_then_combine"),
      mixing_(topology::make_mixing(*environment.topology, spec.string("weights"))),
      local_(environment, schedule_.optimizer),
      nodes_(environment.topology->nodes) {
  if (!schedule_.optimizer.plain())
    spec.fail("optimizer",
              "gradient tracking steps along its tracker y_i, which momentum or weight decay would "
              "no longer keep equal on average to the mean gradient; leave the optimizer plain");
  const std::string where = spec.where() + " (fp32 messages)";
  encoding_ = compression::make_compressor(R"({"kind": "none"})", where);
  const auto d = static_cast<double>(local_.dimension());
  PriceTable& prices = *environment.prices;
  const nlohmann::json fp32 = {{"kind", "none"}};
  // A message is x (or x − ηy) and y: 2d coordinates.
  encode_ = {prices.codec(Work::encode, fp32, where), 2 * d};
  decode_ = {prices.codec(Work::decode, fp32, where), 2 * d};
  neighbor_mixing_ = {prices.floats(Work::mixing), 3 * 2 * d};
  self_mixing_ = {prices.floats(Work::mixing), 2 * 2 * d};
  step_ = {prices.floats(Work::update), 3 * d};   // x − ηy: reads two, writes one
  track_ = {prices.floats(Work::update), 4 * d};  // y ← Σ w y + g⁺ − g: reads three, writes one
  for (Node& node : nodes_) {
    node.x = initial_model(environment);
    node.y.assign(node.x.size(), 0.0f);
    node.gradient.assign(node.x.size(), 0.0f);
    node.sent.assign(2 * node.x.size(), 0.0f);
    node.mixed.assign(2 * node.x.size(), 0.0f);
  }
}

void Dsgt::run(std::size_t i, protocols::Port& port) {
  Node& node = nodes_[i];
  const std::size_t d = node.x.size();
  const auto& neighbors = environment_.topology->neighbors[i];
  Rng batches = local_.batch_stream(i);
  Rng unused(0);  // fp32 encoding draws nothing
  // y_i⁰ = ∇F_i(x_i⁰).
  const std::span<const float> first = local_.gradient(i, node.x, batches, port);
  node.gradient.assign(first.begin(), first.end());
  node.y = node.gradient;
  observe(environment_, 0, i, node.x, node.stats, port);
  for (std::int64_t t = 0; t < schedule_.steps; ++t) {
    const auto eta = static_cast<float>(schedule_.at(t));
    for (std::size_t c = 0; c < d; ++c) {
      node.sent[c] = adapt_first_ ? node.x[c] - eta * node.y[c] : node.x[c];
      node.sent[d + c] = node.y[c];
    }
    if (adapt_first_) port.charge(step_);
    protocols::Bytes bytes = encoding_->encode(node.sent, unused);
    port.charge(encode_);
    for (std::size_t j : neighbors) port.send(j, bytes);
    port.charge(self_mixing_);
    node.arrived.clear();
    for (std::size_t k = 0; k < neighbors.size(); ++k) {
      std::optional<Bytes> received = port.receive(neighbors[k]);
      if (!received) throw std::logic_error("DSGT received no message");
      node.arrived.emplace_back(k, std::move(*received));
      port.charge(decode_);
      port.charge(neighbor_mixing_);
    }
    port.wait_sends();
    offload(environment_, port, [this, i] { combine(i); });
    // x_i⁺: the mixed half-steps (ATC), or the mixed models minus η y_i (DIGing).
    for (std::size_t c = 0; c < d; ++c)
      node.x[c] = adapt_first_ ? node.mixed[c] : node.mixed[c] - eta * node.y[c];
    if (!adapt_first_) port.charge(step_);
    local_.exchange_state(i, mixing_, port);
    // y_i⁺ = Σ_j w_ij y_j + ∇F_i(x_i⁺) − ∇F_i(x_i).
    const std::span<const float> fresh = local_.gradient(i, node.x, batches, port);
    for (std::size_t c = 0; c < d; ++c) {
      node.y[c] = node.mixed[d + c] + (fresh[c] - node.gradient[c]);
      node.gradient[c] = fresh[c];
    }
    port.charge(track_);
    require_finite(node.y, "tracker", i, t + 1);
    observe(environment_, t + 1, i, node.x, node.stats, port);
  }
}

void Dsgt::combine(std::size_t i) {
  Node& node = nodes_[i];
  const auto self = static_cast<float>(mixing_.self[i]);
  for (std::size_t c = 0; c < node.sent.size(); ++c) node.mixed[c] = self * node.sent[c];
  for (const auto& [k, bytes] : node.arrived)
    axpy(node.mixed, static_cast<float>(mixing_.neighbor[i][k]), encoding_->decode(bytes, node.sent.size()));
}

namespace {
const bool registered_dsgt = protocols().add(
    {"dsgt",
     "Gradient tracking (DSGT, Pu and Nedić 2020, \"Distributed stochastic gradient tracking methods\"): "
     "every "
     "node gossips its model and a tracker y_i of the average gradient in fp32, and steps along y_i, so "
     "heterogeneous data adds no bias.",
     {keys::choice(
          "order", {"adapt_then_combine", "combine_then_adapt"},
          "\"adapt_then_combine\" (Pu and Nedić): x_i ← Σ_j w_ij (x_j − η y_j); \"combine_then_adapt\" "
          "(DIGing, Nedić, Olshevsky and Shi 2017): x_i ← Σ_j w_ij x_j − η y_i. Either way "
          "y_i ← Σ_j w_ij y_j + ∇F_i(x_i⁺) − ∇F_i(x_i).")
          .fallback_to("adapt_then_combine"),
      topology::weights_key(), topology::graph_key()},
     {}},
    {.build = [](Spec& spec,
                 const Environment& environment) { return std::make_unique<Dsgt>(spec, environment); },
     // x_i, y_i, the last gradient, the message and its mix (2d each), and every neighbour's 2d message.
     .vectors_per_node = [](const nlohmann::json&, double degree) { return 7 + 2 * degree; }});
}  // namespace

}  // namespace sgdsim::protocols
