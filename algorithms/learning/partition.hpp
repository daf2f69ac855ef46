#pragma once
// Assigning training samples to nodes: every sample is owned by exactly one node; deterministic from the
// seed.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "algorithms/learning/dataset.hpp"
#include "common/keys.hpp"
#include "common/rng.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::learning {

using Shard = std::vector<std::size_t>;  // sample indices into the shared training set

// The partition kinds ("iid", "label_sorted", {"kind": "dirichlet", "alpha": a}); a factory splits the
// samples 0..n-1 of `train` over `nodes` nodes drawing from `rng`.
using PartitionFactory =
    std::function<std::vector<Shard>(Spec&, const Dataset& train, std::size_t nodes, Rng& rng)>;
keys::Registry<PartitionFactory>& partitions();

// Splits `train` as a Spec of the partition family says (Spec::variant("partition")), finishing it. Every
// node gets at least one sample, or it is an InputError.
std::vector<Shard> partition(Spec& spec, const Dataset& train, std::size_t nodes, std::uint64_t seed);

}  // namespace sgdsim::learning
