#pragma once
// Assigning training samples to nodes: every sample is owned by exactly one node; deterministic from the
// seed.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "algorithms/learning/dataset.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::learning {

using Shard = std::vector<std::size_t>;  // sample indices into the shared training set

// `spec` is the scenario's "data" object; reads "partition" ("iid", "label_sorted", {"kind": "dirichlet",
// "alpha": a}). Every node gets at least one sample, or it is an InputError.
std::vector<Shard> partition(Spec& data, const Dataset& train, std::size_t nodes, std::uint64_t seed);

}  // namespace sgdsim::learning
