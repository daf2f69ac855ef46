#include "algorithms/learning/footprint.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace sgdsim::learning {

namespace {
double data_bytes(const Dataset& set) {
  return static_cast<double>(set.sample_bytes()) +
         static_cast<double>(set.samples()) * (sizeof(std::int32_t) + sizeof(float));
}
}  // namespace

MemoryParts memory_parts(const Problem& problem, const Model& model, std::size_t batch_size, bool optimum) {
  const auto d = static_cast<double>(model.dimension());
  // A minibatch is gathered into a batch x features matrix, with the outputs and the model's hidden layers.
  const double per_sample = static_cast<double>(problem.train.dimension()) +
                            std::max(problem.train.classes, 1) + model.hidden_floats_per_sample();
  MemoryParts parts = {
      {"data sets", data_bytes(problem.train) + data_bytes(problem.test)},
      {"minibatch buffers (batch_size " + std::to_string(batch_size) + ")",
       static_cast<double>(batch_size) * (per_sample * sizeof(float) + sizeof(std::size_t))}};
  // L-BFGS keeps 10 pairs of double vectors; Newton (d <= 200) a (d + 1)^2 Hessian.
  if (optimum) parts.push_back({"optimum solver", 24 * d * sizeof(double)});
  return parts;
}

}  // namespace sgdsim::learning
