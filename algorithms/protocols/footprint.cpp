#include "algorithms/protocols/footprint.hpp"

#include <algorithm>
#include <string>

#include "algorithms/protocols/local_step.hpp"
#include "algorithms/protocols/protocol.hpp"

namespace sgdsim::protocols {

MemoryParts memory_parts(const keys::Kind& kind, const nlohmann::json& algorithm,
                         const topology::Topology& topology, std::size_t dimension) {
  const auto n = static_cast<double>(topology.nodes);
  const auto d = static_cast<double>(dimension);
  const double degree = 2.0 * static_cast<double>(topology.edges.size()) / std::max(1.0, n);
  const double vectors = protocols().factory(kind.name).vectors_per_node(algorithm, degree);
  return {{"node models and messages (" + std::to_string(topology.nodes) + " nodes x " +
               std::to_string(static_cast<long long>(vectors)) + " vectors x " + std::to_string(dimension) +
               " floats)",
           n * vectors * d * sizeof(float)},
          {"gradients in flight (up to " + std::to_string(LocalStep::max_in_flight) +
               " at once: a model and a gradient each)",
           std::min(n, static_cast<double>(LocalStep::max_in_flight)) * 2 * d * sizeof(float)}};
}

double gossip_vectors_per_node(const nlohmann::json& algorithm, double mean_degree) {
  const auto verify = algorithm.find("verify_copies");
  return 4 + (verify != algorithm.end() && *verify == true ? mean_degree : 0);
}

}  // namespace sgdsim::protocols
