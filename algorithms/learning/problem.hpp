#pragma once
// The learning problem a scenario names: the "data" object, whose "dataset" key chooses a kind of the dataset
// family (fashion-mnist, libsvm, synthetic, ...; each registers itself from its own *_dataset.cpp file).
#include <cstdint>
#include <functional>
#include <string>

#include "algorithms/learning/augment.hpp"
#include "algorithms/learning/dataset.hpp"
#include "common/keys.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::learning {

// A dataset kind reads its own keys (path, samples, ...) and loads the problem. Relative paths resolve
// against `base_dir` (the scenario file's folder). Missing, truncated or corrupt files are InputErrors naming
// the file and the problem. Capability "suboptimality_by_default": the trace's suboptimality column is on
// unless the scenario says otherwise (cheap exact optimum).
using DatasetFactory = std::function<Problem(Spec& data, std::uint64_t seed, const std::string& base_dir)>;
keys::Registry<DatasetFactory>& datasets();

// Loads the problem of a Spec of the dataset family (Spec::variant("data")); does not finish it (the caller
// reads "partition" and "batch_size" too).
Problem load_problem(Spec& data, std::uint64_t seed, const std::string& base_dir);

// The `augment` object of `data` and its reading (after the problem is loaded: it needs image data).
const keys::Object& augment_keys();
Augmentation read_augmentation(Spec& data, const Dataset& train);

// Helpers for dataset kinds.
std::string resolve_path(const std::string& path, const std::string& base_dir);
// Keeps the first `limit` samples (0 = all).
void keep_first(Dataset& data, std::size_t limit);
// "name (60000 train, 10000 test, 784 features, 10 classes)".
std::string describe_problem(const std::string& name, const Problem& problem);

}  // namespace sgdsim::learning
