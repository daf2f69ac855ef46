#pragma once
// A model over one flat parameter vector. Protocols see only this interface: loss, gradient and a flop count
// per sample that the simulator charges as compute time.
#include <cstddef>
#include <functional>
#include <memory>
#include <span>

#include "algorithms/learning/dataset.hpp"
#include "common/keys.hpp"
#include "common/rng.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::learning {

struct Evaluation {
  double loss = 0;      // mean loss including the l2 term
  double accuracy = 0;  // fraction correct (classification); NaN when it does not apply
};

class Model {
 public:
  virtual ~Model() = default;
  virtual std::size_t dimension() const = 0;
  virtual void initialize(std::span<float> params, Rng& rng) const = 0;
  // Mean loss over `batch` (sample indices into `data`) plus the l2 term; writes its gradient into
  // `gradient`.
  virtual double loss_and_gradient(std::span<const float> params, const Dataset& data,
                                   std::span<const std::size_t> batch, std::span<float> gradient) const = 0;
  // Mean loss (with l2) and accuracy over the given samples (all of them when `subset` is empty). Computes in
  // double where it matters; no side effects.
  virtual Evaluation evaluate(std::span<const float> params, const Dataset& data,
                              std::span<const std::size_t> subset = {}) const = 0;
  // Floating-point operations for forward + backward of one sample.
  virtual double flops_per_sample() const = 0;
};

// The model kinds. Each registers itself from its own file with its keys and capabilities: "convex" (a unique
// optimum f*, so a suboptimality column), "needs_class_labels" (classification data only).
using ModelFactory = std::function<std::unique_ptr<Model>(Spec&, const Dataset& train)>;
keys::Registry<ModelFactory>& models();

// Builds a model for the given data from a Spec of the model family ({"kind": "softmax", "l2": 1e-4}),
// finishing it.
std::unique_ptr<Model> make_model(Spec& spec, const Dataset& train);

}  // namespace sgdsim::learning
