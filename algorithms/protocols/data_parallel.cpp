#include "algorithms/protocols/data_parallel.hpp"

#include "algorithms/protocols/message_compressor.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

DataParallel::DataParallel(Spec& spec, const Environment& environment)
    : environment_(environment), schedule_(spec), local_(environment), nodes_(environment.topology->nodes) {
  const std::size_t n = environment.topology->nodes;
  const std::size_t d = local_.dimension();
  compressor_ = make_message_compressor(spec, "compressor", d);
  Spec memory = spec.variant("memory");
  memory_ = make_memory(memory, n, d);
  Spec collective = spec.variant("collective");
  collective_ =
      make_collective(collective, {n, d, compressor_.get(), environment.clock, spec.where("compressor")});
  for (std::size_t i = 0; i < n; ++i) {
    Node& node = nodes_[i];
    node.x = initial_model(environment);
    node.average.assign(d, 0.0f);
    node.own.assign(d, 0.0f);
    node.compression = Rng::stream(environment.seed, i, Purpose::compression);
  }
}

protocols::Bytes DataParallel::compress(std::size_t i, Node& node, std::span<const float> gradient) {
  const std::span<const float> message = memory_->compensate(i, gradient);
  protocols::Bytes bytes;
  {
    WallClock::Scope timer(environment_.clock, WallClock::Part::compression);
    bytes = compressor_->encode(message, node.compression);
    compressor_->decode_into(bytes, node.own);
  }
  const double norm = squared_norm(message);
  if (norm > 0) {
    double error = 0;
    for (std::size_t c = 0; c < message.size(); ++c) {
      const double e = static_cast<double>(node.own[c]) - message[c];
      error += e * e;
    }
    node.stats.compression_error += error / norm;
    node.stats.compressions += 1;
  }
  memory_->update(i, node.own);
  return bytes;
}

void DataParallel::run(std::size_t i, protocols::Port& port) {
  Node& node = nodes_[i];
  Rng batches = local_.batch_stream(i);
  observe(environment_, 0, i, node.x, node.stats, port);
  for (std::int64_t t = 0; t < schedule_.steps; ++t) {
    const protocols::Bytes bytes = compress(i, node, local_.gradient(i, node.x, batches, port));
    collective_->average(i, bytes, node.own, node.compression, node.average, port);
    axpy(node.x, static_cast<float>(-schedule_.at(t)), node.average);
    observe(environment_, t + 1, i, node.x, node.stats, port);
  }
}

namespace {
const bool registered = protocols().add(
    {"data_parallel",
     "Data-parallel SGD with compressed gradients (the QSGD / NUQSGD setting): every worker's decoded "
     "gradient "
     "is averaged by a collective and every replica takes the same step.",
     {keys::variant("compressor", compression::compressors(), "The compressor of the workers' gradients.")
          .fallback_to({{"kind", "none"}}),
      keys::variant("memory", memories(), "What a worker carries between compressed gradients.")
          .fallback_to({{"kind", "none"}}),
      keys::variant("collective", collectives(), "How the workers average.")
          .fallback_to({{"kind", "allgather"}})},
     {}},
    [](Spec& spec, const Environment& environment) {
      return std::make_unique<DataParallel>(spec, environment);
    });
}  // namespace

}  // namespace sgdsim::protocols
