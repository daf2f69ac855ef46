#pragma once
// Learning-rate schedules eta_t: constant, inverse_time (eta0 * t0 / (t0 + t)), step decay; optional linear
// warm-up. Each schedule is a kind of the "lr" family; a bare number is a constant rate.
#include <cstdint>
#include <functional>
#include <memory>

#include "common/keys.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::learning {

class LearningRate {
 public:
  virtual ~LearningRate() = default;
  virtual double at(std::int64_t step) const = 0;  // step counts from 0
};

using LearningRateFactory = std::function<std::unique_ptr<LearningRate>(Spec&)>;
keys::Registry<LearningRateFactory>& learning_rates();

// Builds the schedule of a Spec of the "lr" family (Spec::variant("lr")), finishing it.
std::unique_ptr<LearningRate> make_learning_rate(Spec& lr);

}  // namespace sgdsim::learning
