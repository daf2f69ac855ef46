#pragma once
// The normalised variance of data-parallel SGD's gradient estimator, the quantity NUQSGD's variance claims
// are about: at the average model x, with g = ∇f(x) on a reference set of training samples,
//   sampling_variance  = E ||(1/n) Σ_i g_i − g||² / ||g||²          (n workers' minibatch gradients g_i)
//   estimator_variance = E ||(1/n) Σ_i Q(g_i) − g||² / ||g||²       (each g_i encoded and decoded)
//   estimator_nvar     = Σ_c Var[ĝ_c] / Σ_c E[ĝ_c²]                    (ĝ = (1/n) Σ_i Q(g_i))
// the last as NUQSGD's code reports it: per coordinate, centred on the estimator's own mean over the draws
// (not on g), over its second moment; it needs no reference gradient (0 with a single draw).
// Each expectation a mean over `draws` independent draws of one minibatch per worker from its own shard. The
// draws have their own random streams (the same for every compressor, so methods are compared on the same
// minibatches) and touch no node state: observation stays free.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/learning/dataset.hpp"
#include "algorithms/learning/model.hpp"
#include "algorithms/learning/partition.hpp"

namespace sgdsim::observation {

struct VarianceSetup {
  const learning::Model* model = nullptr;
  const learning::Dataset* train = nullptr;
  const std::vector<learning::Shard>* shards = nullptr;  // one per worker
  std::size_t batch_size = 0;
  std::shared_ptr<const compression::Compressor> compressor;  // the workers' (stateless) compressor
  std::size_t draws = 0;
  std::vector<std::size_t> reference;  // rows of the reference gradient g
  std::uint64_t seed = 0;
};

class EstimatorVariance {
 public:
  explicit EstimatorVariance(VarianceSetup setup);
  struct Result {
    double sampling = 0;
    double estimator = 0;
    double estimator_nvar = 0;
  };
  // At model `x` (`state`: the model's state, e.g. BatchNorm statistics; empty for models without), at
  // evaluation step `step` (which selects the draws' random streams). Nothing when g = 0 (no direction to be
  // relative to).
  std::optional<Result> measure(std::int64_t step, std::span<const float> x,
                                std::span<const float> state) const;

 private:
  // The mean gradient over `rows`, in chunks so that a large reference set fits in memory.
  void gradient(std::span<const float> x, std::span<const float> state, std::span<const std::size_t> rows,
                std::span<float> out) const;
  VarianceSetup setup_;
};

}  // namespace sgdsim::observation
