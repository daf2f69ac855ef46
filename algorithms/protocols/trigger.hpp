#pragma once
// SPARQ-SGD's event trigger: node i sends at a synchronization index only if ||x_half − x̂_i||² > c_t · η_t².
// Threshold schedules c_t (kinds of the "trigger" family): constant c0; poly c0·t^(1−ε) (strongly convex
// analysis); step c0 + increment·⌊t/every⌋.
#include <cstdint>
#include <functional>

#include "common/keys.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::protocols {

class Trigger {
 public:
  enum class Schedule { constant, poly, step };
  Trigger(Schedule schedule, double c0, double epsilon = 0.5, double increment = 0, std::int64_t every = 1)
      : schedule_(schedule), c0_(c0), epsilon_(epsilon), increment_(increment), every_(every) {}

  double threshold(std::int64_t step) const;
  bool fires(double squared_difference, std::int64_t step, double learning_rate) const {
    return squared_difference > threshold(step) * learning_rate * learning_rate;
  }

 private:
  Schedule schedule_ = Schedule::constant;
  double c0_ = 0;
  double epsilon_ = 0.5;
  double increment_ = 0;
  std::int64_t every_ = 1;
};

using TriggerFactory = std::function<Trigger(Spec&)>;
keys::Registry<TriggerFactory>& triggers();

// Builds the trigger of a Spec of the "trigger" family, finishing it.
Trigger make_trigger(Spec& spec);

}  // namespace sgdsim::protocols
