#include "algorithms/protocols/data_parallel.hpp"

#include "common/error.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

DataParallel::DataParallel(Spec& spec, const Environment& environment)
    : environment_(environment),
      schedule_(spec),
      local_(environment, schedule_.optimizer),
      encoders_(spec, environment.topology->nodes, local_.dimension(), environment.seed, environment.clock,
                environment.costs),
      nodes_(environment.topology->nodes) {
  const std::size_t n = environment.topology->nodes;
  const std::size_t d = local_.dimension();
  if (environment.model->averages_state()) {
    throw InputError(
        spec.where() +
        ": the model's batch_norm \"averaged\" is implemented by the gossip protocols (dpsgd, choco, "
        "sparq); data-parallel replicas keep their BatchNorm statistics local (the trace evaluates with "
        "their mean)");
  }
  Spec collective = spec.variant("collective");
  collective_ =
      make_collective(collective, {n, d, &encoders_.compressor(), encoders_.decode_s(), &environment.costs,
                                   environment.clock, spec.where("compressor")});
  for (Node& node : nodes_) {
    node.x = initial_model(environment);
    node.average.assign(d, 0.0f);
    node.own.assign(d, 0.0f);
  }
}

void DataParallel::run(std::size_t i, protocols::Port& port) {
  Node& node = nodes_[i];
  Rng batches = local_.batch_stream(i);
  observe(environment_, 0, i, node.x, node.stats, port);
  for (std::int64_t t = 0; t < schedule_.steps; ++t) {
    encoders_.encode(i, local_.gradient(i, node.x, batches, port), node.bytes, node.own, node.stats);
    port.spend(Work::encode, encoders_.encode_s());
    collective_->average(i, node.bytes, node.own, encoders_.stream(i), node.average, port);
    local_.descend(i, node.x, schedule_.at(t), node.average);
    port.spend(Work::update, local_.update_s());
    observe(environment_, t + 1, i, node.x, node.stats, port);
  }
}

namespace {
std::vector<keys::Key> data_parallel_keys() {
  std::vector<keys::Key> keys =
      Encoders::keys("The compressor of the workers' gradients.", nlohmann::json{{"kind", "none"}});
  keys.push_back(keys::variant("collective", collectives(), "How the workers average.")
                     .fallback_to({{"kind", "allgather"}}));
  return keys;
}

const bool registered = protocols().add(
    {"data_parallel",
     "Data-parallel SGD with compressed gradients (the QSGD / NUQSGD setting): every worker's decoded "
     "gradient "
     "is averaged by a collective and every replica takes the same step.",
     data_parallel_keys(),
     {}},
    [](Spec& spec, const Environment& environment) {
      return std::make_unique<DataParallel>(spec, environment);
    });
}  // namespace

}  // namespace sgdsim::protocols
