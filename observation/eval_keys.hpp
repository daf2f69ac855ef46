#pragma once
// The scenario's `eval` object — what the observer measures — declared and read beside the observer it
// configures: the trace's spacing, the training-loss subset, the suboptimality column and the
// estimator-variance columns.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/learning/dataset.hpp"
#include "algorithms/learning/model.hpp"
#include "algorithms/learning/partition.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"
#include "observation/observer.hpp"

namespace sgdsim::observation {

const keys::Object& eval_keys();

// What reading `eval` needs from the rest of the scenario.
struct EvalContext {
  const learning::Model* model = nullptr;
  const learning::Dataset* train = nullptr;
  const std::vector<learning::Shard>* shards = nullptr;
  std::size_t batch_size = 0;
  std::uint64_t seed = 0;
  bool convex = false;         // the model kind declares "convex"
  bool optimum_cheap = false;  // the data set kind declares "suboptimality_by_default"
  std::string algorithm;       // the protocol kind
  const nlohmann::json* resolved_algorithm = nullptr;
};

struct EvalSetup {
  ObserverOptions options;     // every, train_subset, variance; the caller adds what is not eval's
  bool solve_optimum = false;  // f* is solved before simulating (it can take seconds)
};

// Reads the `eval` object (not finishing it). InputError naming the key for a setting the run cannot have.
EvalSetup read_eval(Spec& eval, const EvalContext& context);

}  // namespace sgdsim::observation
