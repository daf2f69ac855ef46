#include "algorithms/learning/stand_in_model.hpp"

#include <cstdint>
#include <limits>

namespace sgdsim::learning {
namespace {
constexpr std::size_t block = 1 << 16;  // values of noise; a prime stride of offsets keeps blocks unaligned
}

StandInModel::StandInModel(std::unique_ptr<Model> model, double scale) : model_(std::move(model)) {
  Rng rng = Rng::stream(0, 0, Purpose::user);
  noise_.resize(block);
  for (float& value : noise_) value = static_cast<float>(scale * rng.normal());
}

double StandInModel::loss_and_gradient(std::span<const float> params, const Dataset& data,
                                       std::span<const std::size_t> batch, std::span<float> gradient) const {
  (void)params;
  (void)data;
  // The batch's samples choose the offset: deterministic, and different from step to step and node to node.
  std::uint64_t hash = 0x9e3779b97f4a7c15ULL;
  for (std::size_t index : batch) hash = mix64(hash ^ index);
  std::size_t at = static_cast<std::size_t>(hash % block);
  for (float& value : gradient) {
    value = noise_[at];
    if (++at == block) at = 0;
  }
  return 1.0;
}

Evaluation StandInModel::evaluate(std::span<const float> params, const Dataset& data,
                                  std::span<const std::size_t> subset) const {
  (void)params;
  (void)data;
  (void)subset;
  return {1.0, std::numeric_limits<double>::quiet_NaN()};
}

}  // namespace sgdsim::learning
