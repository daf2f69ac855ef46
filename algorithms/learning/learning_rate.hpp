#pragma once
// Learning-rate schedules eta_t: constant, inverse_time (eta0 * t0 / (t0 + t)), step decay; optional linear
// warm-up.
#include <cstdint>
#include <memory>

namespace sgdsim {
class Spec;
}

namespace sgdsim::learning {

class LearningRate {
 public:
  virtual ~LearningRate() = default;
  virtual double at(std::int64_t step) const = 0;  // step counts from 0
};

// Reads the scenario's "lr" object; a bare number means a constant rate.
std::unique_ptr<LearningRate> make_learning_rate(Spec& parent, const char* key = "lr");

}  // namespace sgdsim::learning
