// 1-bit Adam (onebit_adam.hpp).
#include "algorithms/protocols/onebit_adam.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "algorithms/compression/bit_stream.hpp"
#include "algorithms/compression/sign.hpp"
#include "algorithms/protocols/optimizer.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

namespace {
// ‖v‖₂ / √|v| (0 for an empty chunk): DeepSpeed's scale of a compensated buffer.
float rms(std::span<const float> v) {
  if (v.empty()) return 0.0f;
  double sum = 0;
  for (const float x : v) sum += static_cast<double>(x) * x;
  return static_cast<float>(std::sqrt(sum / static_cast<double>(v.size())));
}
}  // namespace

OnebitAdam::OnebitAdam(Spec& spec, const Environment& environment)
    : environment_(environment),
      schedule_(spec),
      warmup_steps_(spec.integer("warmup_steps")),
      beta1_(static_cast<float>(spec.number("beta1"))),
      beta2_(static_cast<float>(spec.number("beta2"))),
      epsilon_(static_cast<float>(spec.number("epsilon"))),
      local_(environment),
      nodes_(environment.topology->nodes) {
  if (!schedule_.optimizer.plain())
    spec.fail("optimizer", "1-bit Adam is its own optimizer; leave the local optimizer plain");
  if (environment.model->averages_state())
    throw InputError(spec.where() +
                     ": the model's batch_norm \"averaged\" is implemented by the gossip protocols (dpsgd, "
                     "choco, sparq); 1-bit Adam's replicas keep their BatchNorm statistics local");
  const std::size_t n = environment.topology->nodes;
  const std::size_t d = local_.dimension();
  const std::string where = spec.where("collective") + " (fp32 gradients)";
  fp32_ = compression::make_compressor(R"({"kind": "none"})", where);
  sign_ = compression::make_compressor(R"({"kind": "sign", "bucket": 0})", spec.where());
  PriceTable& prices = *environment.prices;
  const nlohmann::json none = {{"kind", "none"}};
  const auto floats = static_cast<double>(d);
  encode_fp32_ = {prices.codec(Work::encode, none, where), floats};
  Spec collective = spec.variant("collective");
  collective_ = make_collective(collective, {n,
                                             d,
                                             fp32_.get(),
                                             {prices.codec(Work::decode, none, where), floats},
                                             environment.prices.get(),
                                             environment.clock,
                                             where,
                                             compression::Layout{},
                                             physical_network(environment)});
  encode_floats_ = prices.floats(Work::encode);
  decode_floats_ = prices.floats(Work::decode);
  mixing_floats_ = prices.floats(Work::mixing);
  adam_ = {prices.floats(Work::update), 7 * floats};      // reads x, g, m, v; writes x, m, v
  momentum_ = {prices.floats(Work::update), 3 * floats};  // mᵢ = β₁m + (1 − β₁)gᵢ
  // cᵢ = mᵢ + eᵢ (reads two, writes one), its norm (reads one), signs and eᵢ ← cᵢ − ĉᵢ (reads one, writes
  // one).
  worker_encode_ = {encode_floats_, 6 * floats};
  step_ = {prices.floats(Work::update), 4 * floats};  // reads x, m, v; writes x
  for (std::size_t i = 0; i < n; ++i) {
    Node& node = nodes_[i];
    node.x = initial_model(environment);
    for (std::vector<float>* v : {&node.m, &node.v, &node.own, &node.average, &node.compensated,
                                  &node.worker_error, &node.decoded, &node.chunk})
      v->assign(d, 0.0f);
    node.server_error.assign(chunk(node.x, i).size(), 0.0f);
    streams_.push_back(Rng::stream(environment.seed, i, Purpose::compression));
  }
}

std::span<float> OnebitAdam::chunk(std::span<float> v, std::size_t c) const {
  const std::size_t n = nodes_.size(), d = v.size();
  const std::size_t begin = c * (d / n) + std::min(c, d % n);
  return v.subspan(begin, d / n + (c < d % n ? 1 : 0));
}

compression::Bytes OnebitAdam::signs(std::span<const float> values, float scale) {
  compression::Bytes out;
  if (values.empty()) return out;  // an empty chunk (d < n): nothing to send, not even a scale
  compression::BitWriter writer(out);
  writer.reserve(32 + values.size());
  writer.write_float(scale);
  compression::write_sign_bits(values, writer);
  writer.finish();
  return out;
}

void OnebitAdam::adam_step(Node& node, double eta) const {
  const auto rate = static_cast<float>(-eta);
  for (std::size_t c = 0; c < node.x.size(); ++c)
    node.x[c] += rate * node.m[c] / (std::sqrt(node.v[c]) + epsilon_);
}

void OnebitAdam::warmup_step(std::size_t i, std::int64_t t, Rng& batches, protocols::Port& port) {
  Node& node = nodes_[i];
  const std::span<const float> g = local_.gradient(i, node.x, batches, port);
  std::copy(g.begin(), g.end(), node.own.begin());  // fp32: what is sent is the gradient itself
  Bytes bytes;
  if (collective_->sends_message()) {
    Rng unused(0);
    fp32_->encode_into(node.own, unused, bytes);
    port.charge(encode_fp32_);
  }
  collective_->average(i, bytes, node.own, streams_[i], node.average, port);
  for (std::size_t c = 0; c < node.x.size(); ++c) {
    const float a = node.average[c];
    node.m[c] = beta1_ * node.m[c] + (1.0f - beta1_) * a;
    node.v[c] = beta2_ * node.v[c] + (1.0f - beta2_) * a * a;
  }
  adam_step(node, schedule_.at(t));
  port.charge(adam_);
}

void OnebitAdam::compressed_step(std::size_t i, std::int64_t t, Rng& batches, protocols::Port& port) {
  Node& node = nodes_[i];
  const std::size_t n = nodes_.size(), d = node.x.size();
  const std::span<const float> g = local_.gradient(i, node.x, batches, port);
  // The worker's side: its own momentum, compensated by its error, compressed with one scale.
  for (std::size_t c = 0; c < d; ++c)
    node.compensated[c] = beta1_ * node.m[c] + (1.0f - beta1_) * g[c] + node.worker_error[c];
  port.charge(momentum_);
  const float scale = rms(node.compensated);
  for (std::size_t j = 0; j < n; ++j) {
    const Bytes bytes = signs(chunk(node.compensated, j), scale);
    // What every receiver rebuilds, from the bytes alone.
    sign_->decode_into(bytes, chunk(node.decoded, j));
    if (j != i) port.send(j, bytes);
  }
  double error = 0, norm = 0;
  for (std::size_t c = 0; c < d; ++c) {
    node.worker_error[c] = node.compensated[c] - node.decoded[c];
    error += static_cast<double>(node.worker_error[c]) * node.worker_error[c];
    norm += static_cast<double>(node.compensated[c]) * node.compensated[c];
  }
  if (norm > 0) {
    node.stats.compression_error += error / norm;
    ++node.stats.compressions;
  }
  port.charge(worker_encode_);
  // The server's side for chunk i: the mean of the workers' chunks (added in worker order), compensated by
  // its own error, compressed again.
  const std::span<float> z = chunk(node.compensated, i);
  const auto k = static_cast<double>(z.size());
  std::fill(z.begin(), z.end(), 0.0f);
  for (std::size_t j = 0; j < n; ++j) {
    std::span<const float> part = chunk(node.decoded, i);
    if (j != i) {
      const std::optional<Bytes> message = port.receive(j);
      if (!message) throw std::logic_error("1-bit Adam received silence");
      const std::span<float> into = std::span<float>(node.chunk).first(z.size());
      sign_->decode_into(*message, into);
      port.charge(Charge{decode_floats_, k});
      part = into;
    }
    for (std::size_t c = 0; c < z.size(); ++c) z[c] += part[c];
    port.charge(Charge{mixing_floats_, 3 * k});
  }
  const float inverse = 1.0f / static_cast<float>(n);
  for (std::size_t c = 0; c < z.size(); ++c) z[c] = z[c] * inverse + node.server_error[c];
  const Bytes reply = signs(z, rms(z));
  const std::span<float> mine = chunk(node.m, i);
  sign_->decode_into(reply, mine);
  for (std::size_t c = 0; c < z.size(); ++c) node.server_error[c] = z[c] - mine[c];
  port.charge(Charge{encode_floats_, 8 * k});  // z: reads three, writes one; its norm; signs and ē
  for (std::size_t j = 0; j < n; ++j)
    if (j != i) port.send(j, reply);
  // Every worker's m: the servers' chunks.
  for (std::size_t j = 0; j < n; ++j) {
    if (j == i) continue;
    const std::optional<Bytes> message = port.receive(j);
    if (!message) throw std::logic_error("1-bit Adam received silence");
    const std::span<float> part = chunk(node.m, j);
    sign_->decode_into(*message, part);
    port.charge(Charge{decode_floats_, static_cast<double>(part.size())});
  }
  port.wait_sends();
  adam_step(node, schedule_.at(t));
  port.charge(step_);
}

void OnebitAdam::run(std::size_t i, protocols::Port& port) {
  Node& node = nodes_[i];
  Rng batches = local_.batch_stream(i);
  observe(environment_, 0, i, node.x, node.stats, port);
  for (std::int64_t t = 0; t < schedule_.steps; ++t) {
    if (t < warmup_steps_)
      warmup_step(i, t, batches, port);
    else
      compressed_step(i, t, batches, port);
    observe(environment_, t + 1, i, node.x, node.stats, port);
  }
}

namespace {
// Declared once, in the optimizer object: data_parallel's optimizer "onebit_adam" is this protocol.
std::vector<keys::Key> onebit_adam_keys() {
  const keys::Object& optimizer = optimizer_keys();
  return {*optimizer.find("warmup_steps"), *optimizer.find("beta1"), *optimizer.find("beta2"),
          *optimizer.find("epsilon"),
          keys::variant("collective", collectives(),
                        "How the workers average their fp32 gradients in the warm-up.")
              .fallback_to({{"kind", "ring_allreduce"}})};
}

const bool registered_onebit_adam = protocols().add(
    {"onebit_adam",
     "1-bit Adam (Tang et al. 2021): data-parallel Adam with fp32 gradients for warmup_steps, then the "
     "variance frozen and the momentum averaged by an error-compensated 1-bit all-reduce in two stages "
     "(each worker's chunks to their servers, each server's chunk back to all), as DeepSpeed's OnebitAdam.",
     onebit_adam_keys(),
     {}},
    {.build = [](Spec& spec,
                 const Environment& environment) { return std::make_unique<OnebitAdam>(spec, environment); },
     // x, m, v, the sent and averaged gradients, c, e, ĉ, a chunk, the server's error and the collective's
     // scratch.
     .vectors_per_node = [](const nlohmann::json&, double) { return 11.0; }});
}  // namespace

}  // namespace sgdsim::protocols
