#pragma once
// A model's stand-in for estimates: the same dimension, tensors, flops and state as the model it replaces,
// and a gradient of seeded Gaussian noise instead of the model's math, so that a few steps of a scenario can
// be simulated (every charge, every message) without the cost of learning (`sgdsim estimate`). Messages of
// codecs whose size depends on the values (Elias coding, thresholds) are sized for Gaussian gradients.
#include <memory>
#include <vector>

#include "algorithms/learning/model.hpp"

namespace sgdsim::learning {

class StandInModel final : public Model {
 public:
  // `scale`: the standard deviation of the stand-in gradient's coordinates.
  explicit StandInModel(std::unique_ptr<Model> model, double scale = 1e-2);

  std::size_t dimension() const override { return model_->dimension(); }
  void initialize(std::span<float> params, Rng& rng) const override { model_->initialize(params, rng); }
  double loss_and_gradient(std::span<const float> params, const Dataset& data,
                           std::span<const std::size_t> batch, std::span<float> gradient) const override;
  Evaluation evaluate(std::span<const float> params, const Dataset& data,
                      std::span<const std::size_t> subset = {}) const override;
  double flops_per_sample() const override { return model_->flops_per_sample(); }
  double hidden_floats_per_sample() const override { return model_->hidden_floats_per_sample(); }
  std::vector<LayerCost> layer_costs() const override { return model_->layer_costs(); }
  std::vector<std::size_t> tensor_layers() const override { return model_->tensor_layers(); }
  std::vector<std::size_t> tensor_sizes() const override { return model_->tensor_sizes(); }
  std::vector<Shape> tensor_shapes() const override { return model_->tensor_shapes(); }
  std::size_t state_dimension() const override { return model_->state_dimension(); }
  std::vector<std::size_t> state_tensor_sizes() const override { return model_->state_tensor_sizes(); }
  void initialize_state(std::span<float> state) const override { model_->initialize_state(state); }
  bool averages_state() const override { return model_->averages_state(); }

 private:
  std::unique_ptr<Model> model_;
  std::vector<float> noise_;  // one block of N(0, scale²) values, tiled from an offset the batch chooses
};

}  // namespace sgdsim::learning
