// D-PSGD with exact fp32 messages, in either order of its local step and its gossip averaging (dpsgd.hpp).
#include "algorithms/protocols/dpsgd.hpp"

#include "algorithms/protocols/local_step.hpp"
#include "algorithms/protocols/offload.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

Dpsgd::Dpsgd(Spec& spec, const Environment& environment)
    : environment_(environment),
      schedule_(spec),
      order_(spec.string("order") == "combine_then_adapt" ? Order::combine_then_adapt
                                                          : Order::adapt_then_combine),
      mixing_(topology::make_mixing(*environment.topology, spec.string("weights"))),
      local_(environment, schedule_.optimizer),
      nodes_(environment.topology->nodes) {
  encoding_ = compression::make_compressor(R"({"kind": "none"})", spec.where() + " (fp32 messages)");
  const std::size_t d = local_.dimension();
  PriceTable& prices = *environment.prices;
  const nlohmann::json fp32 = {{"kind", "none"}};
  encode_ = {prices.codec(Work::encode, fp32, spec.where() + " (fp32 messages)"), static_cast<double>(d)};
  decode_ = {prices.codec(Work::decode, fp32, spec.where() + " (fp32 messages)"), static_cast<double>(d)};
  neighbor_mixing_ = {prices.floats(Work::mixing), 3.0 * static_cast<double>(d)};
  self_mixing_ = {prices.floats(Work::mixing), 2.0 * static_cast<double>(d)};
  for (auto& node : nodes_) {
    node.x = initial_model(environment);
    node.mixed.assign(d, 0.0f);
    if (order_ == Order::combine_then_adapt) node.gradient.assign(d, 0.0f);
  }
}

void Dpsgd::run(std::size_t i, protocols::Port& port) {
  Node& node = nodes_[i];
  const auto& neighbors = environment_.topology->neighbors[i];
  Rng batches = local_.batch_stream(i);
  Rng unused(0);  // fp32 encoding draws nothing
  observe(environment_, 0, i, node.x, node.stats, port);
  for (std::int64_t t = 0; t < schedule_.steps; ++t) {
    const double eta = schedule_.at(t);
    if (order_ == Order::adapt_then_combine) {
      // Adapt: the half-step model x_i − η g_i is what the neighbours receive.
      local_.descend(i, node.x, eta, local_.gradient(i, node.x, batches, port));
      port.charge(local_.update());
    } else {
      // The gradient at the iterate before mixing, kept (LocalStep's span is shared) until after the combine.
      const std::span<const float> g = local_.gradient(i, node.x, batches, port);
      node.gradient.assign(g.begin(), g.end());
    }
    protocols::Bytes bytes = encoding_->encode(node.x, unused);
    port.charge(encode_);
    for (std::size_t j : neighbors) port.send(j, bytes);
    // Combine: Σ_j w_ij x_j over the node and its neighbours. The work is charged as each message arrives;
    // the real math is done once the last has (combine(), on the worker pool while the other nodes run).
    port.charge(self_mixing_);
    double heard = mixing_.self[i];  // the weight of the models that arrived, own included
    node.arrived.clear();
    for (std::size_t k = 0; k < neighbors.size(); ++k) {
      protocols::Received received = port.receive_or_miss(neighbors[k]);
      if (received.status == protocols::Received::Status::missing) continue;
      if (received.status == protocols::Received::Status::silence)
        throw std::logic_error("D-PSGD received silence");
      node.arrived.emplace_back(k, std::move(received.bytes));
      heard += mixing_.neighbor[i][k];
      port.charge(decode_);
      port.charge(neighbor_mixing_);
    }
    port.wait_sends();
    offload(environment_, port, [this, i] { combine(i); });
    // A neighbour not heard from this round drops out of the average: the weights of those heard are
    // renormalised to sum to one (exactly one already when everything arrived).
    if (heard < 1.0 && environment_.lossy) {
      const auto scale = static_cast<float>(1.0 / heard);
      for (float& v : node.mixed) v *= scale;
      port.charge(self_mixing_);
    }
    node.x.swap(node.mixed);
    local_.exchange_state(i, mixing_, port);
    // Adapt after combining: x_i ← Σ_j w_ij x_j − η ∇F_i(x_i) with the old x_i.
    if (order_ == Order::combine_then_adapt) {
      local_.descend(i, node.x, eta, node.gradient);
      port.charge(local_.update());
    }
    observe(environment_, t + 1, i, node.x, node.stats, port);
  }
}

void Dpsgd::combine(std::size_t i) {
  Node& node = nodes_[i];
  const auto self = static_cast<float>(mixing_.self[i]);
  for (std::size_t c = 0; c < node.x.size(); ++c) node.mixed[c] = self * node.x[c];
  for (const auto& [k, bytes] : node.arrived)
    axpy(node.mixed, static_cast<float>(mixing_.neighbor[i][k]), encoding_->decode(bytes, node.x.size()));
}

namespace {
const bool registered_dpsgd = protocols().add(
    {"dpsgd",
     "D-PSGD with exact fp32 messages: every node averages its neighbours' models with the mixing weights "
     "and takes a local SGD step, in the order `order` says.",
     {keys::choice(
          "order", {"adapt_then_combine", "combine_then_adapt"},
          "\"adapt_then_combine\" (the diffusion ATC form, e.g. Sayed 2014): x_i ← Σ_j w_ij (x_j − η "
          "∇F_j(x_j)), the half-step models are exchanged; \"combine_then_adapt\" (Lian et al. 2017, "
          "\"Can decentralized algorithms outperform centralized algorithms?\", Algorithm 1): x_i ← "
          "Σ_j w_ij x_j − η ∇F_i(x_i), the gradient taken at the iterate before mixing.")
          .fallback_to("adapt_then_combine"),
      topology::weights_key(), topology::graph_key()},
     {"survives_failures", "takes_late_messages"}},
    {.build = [](Spec& spec,
                 const Environment& environment) { return std::make_unique<Dpsgd>(spec, environment); },
     // x_i, its mixed model, and every neighbour's fp32 model in flight.
     .vectors_per_node = [](const nlohmann::json&, double degree) { return 2 + degree; }});
}  // namespace

}  // namespace sgdsim::protocols
