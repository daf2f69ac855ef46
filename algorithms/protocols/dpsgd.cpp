// D-PSGD (Lian et al. 2017), adapt then combine: x_i ← Σ_j w_ij (x_j − η g_j), with exact fp32 messages.
#include "algorithms/protocols/dpsgd.hpp"

#include "algorithms/protocols/local_step.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

Dpsgd::Dpsgd(Spec& spec, const Environment& environment)
    : environment_(environment),
      schedule_(spec),
      mixing_(topology::make_mixing(*environment.topology, spec.string("weights"))),
      local_(environment),
      nodes_(environment.topology->nodes) {
  encoding_ = compression::make_compressor(R"({"kind": "none"})", spec.where() + " (fp32 messages)");
  const std::size_t d = local_.dimension();
  const Costs& costs = environment.costs;
  encode_s_ = costs.encode_s("none", d, spec.where() + " (fp32 messages)");
  decode_s_ = costs.decode_s("none", d, spec.where() + " (fp32 messages)");
  neighbor_mixing_s_ = costs.vector_s(Work::mixing, 3.0 * static_cast<double>(d));
  self_mixing_s_ = costs.vector_s(Work::mixing, 2.0 * static_cast<double>(d));
  for (auto& node : nodes_) {
    node.x = initial_model(environment);
    node.mixed.assign(d, 0.0f);
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
    axpy(node.x, static_cast<float>(-eta), local_.gradient(i, node.x, batches, port));
    port.spend(Work::update, local_.update_s());
    protocols::Bytes bytes = encoding_->encode(node.x, unused);
    port.spend(Work::encode, encode_s_);
    for (std::size_t j : neighbors) port.send(j, bytes);
    const auto self = static_cast<float>(mixing_.self[i]);
    for (std::size_t c = 0; c < node.x.size(); ++c) node.mixed[c] = self * node.x[c];
    port.spend(Work::mixing, self_mixing_s_);
    for (std::size_t k = 0; k < neighbors.size(); ++k) {
      const std::optional<protocols::Bytes> message = port.receive(neighbors[k]);
      if (!message) throw std::logic_error("D-PSGD received silence");
      axpy(node.mixed, static_cast<float>(mixing_.neighbor[i][k]),
           encoding_->decode(*message, node.x.size()));
      port.spend(Work::decode, decode_s_);
      port.spend(Work::mixing, neighbor_mixing_s_);
    }
    port.wait_sends();
    node.x.swap(node.mixed);
    observe(environment_, t + 1, i, node.x, node.stats, port);
  }
}

namespace {
const bool registered = protocols().add(
    {"dpsgd",
     "D-PSGD (Lian et al. 2017), adapt then combine: x_i ← Σ_j w_ij (x_j − η g_j), with exact fp32 messages.",
     {topology::weights_key()},
     {}},
    [](Spec& spec, const Environment& environment) { return std::make_unique<Dpsgd>(spec, environment); });
}  // namespace

}  // namespace sgdsim::protocols
