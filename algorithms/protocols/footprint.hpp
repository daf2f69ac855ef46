#pragma once
// The protocols' part of a run's memory estimate (common/memory_limit.hpp): every node's vectors, as its
// protocol kind declares them (ProtocolFactory::vectors_per_node), and the gradients in flight. Rough on
// purpose: it must catch the scenarios that would need tens of gigabytes, not predict the last megabyte.
#include <cstddef>

#include <nlohmann/json.hpp>

#include "common/keys.hpp"
#include "common/memory_limit.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::protocols {

// `kind` is the algorithm's protocol kind; `algorithm` its object before validation.
MemoryParts memory_parts(const keys::Kind& kind, const nlohmann::json& algorithm,
                         const topology::Topology& topology, std::size_t dimension);

// Compressed gossip (gossip.hpp): x_i, x̂_i, m_i and one message per node; with `verify_copies`, also every
// neighbour's copy. CHOCO-SGD and SPARQ-SGD declare it.
double gossip_vectors_per_node(const nlohmann::json& algorithm, double mean_degree);

}  // namespace sgdsim::protocols
