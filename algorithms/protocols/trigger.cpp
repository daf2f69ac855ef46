#include "algorithms/protocols/trigger.hpp"

#include <cmath>

#include "common/spec.hpp"

namespace sgdsim::protocols {

Trigger::Trigger(Spec& spec) {
  const std::string schedule = spec.choice("schedule", {"constant", "poly", "step"}, "constant");
  c0_ = spec.number("c0", 0.0, 0.0);
  if (schedule == "poly") {
    schedule_ = Schedule::poly;
    epsilon_ = spec.number("epsilon", 0.5, 0.0, 1.0);
  } else if (schedule == "step") {
    schedule_ = Schedule::step;
    increment_ = spec.number("increment", 1.0, 0.0);
    every_ = spec.integer("every", 1000, 1);
  }
  spec.finish();
}

double Trigger::threshold(std::int64_t step) const {
  const auto t = static_cast<double>(step);
  switch (schedule_) {
    case Schedule::poly:
      return c0_ * std::pow(t, 1.0 - epsilon_);
    case Schedule::step:
      return c0_ + increment_ * std::floor(t / static_cast<double>(every_));
    case Schedule::constant:
      break;
  }
  return c0_;
}

}  // namespace sgdsim::protocols
