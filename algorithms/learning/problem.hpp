#pragma once
// Loading the learning problem a scenario names: Fashion-MNIST (IDX), LIBSVM text files, or a synthetic
// problem.
#include <cstdint>
#include <string>

#include "algorithms/learning/dataset.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::learning {

// Reads the scenario's "data" object (dataset, path, ...; not "partition"/"batch_size", which the caller
// reads). Relative paths are resolved against `base_dir` (the scenario file's folder). Missing, truncated or
// corrupt files are InputErrors naming the file and the problem.
Problem load_problem(Spec& data, std::uint64_t seed, const std::string& base_dir);

}  // namespace sgdsim::learning
