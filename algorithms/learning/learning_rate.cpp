#include "algorithms/learning/learning_rate.hpp"

#include <algorithm>
#include <cmath>

#include "common/spec.hpp"

namespace sgdsim::learning {

namespace {

class Schedule final : public LearningRate {
 public:
  enum class Kind { constant, inverse_time, step };
  Schedule(Kind kind, double value, double t0, double factor, std::int64_t every, std::int64_t warmup)
      : kind_(kind), value_(value), t0_(t0), factor_(factor), every_(every), warmup_(warmup) {}

  double at(std::int64_t step) const override {
    const double t = static_cast<double>(std::max<std::int64_t>(step, 0));
    double rate = value_;
    if (kind_ == Kind::inverse_time) rate = value_ * t0_ / (t0_ + t);
    if (kind_ == Kind::step)
      rate = value_ * std::pow(factor_, static_cast<double>(std::max<std::int64_t>(step, 0) / every_));
    // Linear warm-up scales the schedule by (t + 1) / warmup over the first `warmup` steps; the schedule's
    // own clock is not shifted.
    if (step < warmup_) rate *= (t + 1.0) / static_cast<double>(warmup_);
    return rate;
  }

 private:
  Kind kind_;
  double value_, t0_, factor_;
  std::int64_t every_, warmup_;
};

}  // namespace

std::unique_ptr<LearningRate> make_learning_rate(Spec& parent, const char* key) {
  const json* given = parent.peek(key);
  if (!given || !given->is_object()) {
    if (given && !given->is_number()) {
      parent.expected(key,
                      "a number (constant rate) or an object such as {\"schedule\": \"inverse_time\", "
                      "\"value\": 0.1, \"t0\": 1000}");
    }
    return std::make_unique<Schedule>(Schedule::Kind::constant, parent.positive(key), 0, 1, 1, 0);
  }
  Spec spec = parent.object(key);
  const std::string name = spec.choice("schedule", {"constant", "inverse_time", "step"}, "constant");
  const double value = spec.positive("value");
  double t0 = 0, factor = 1;
  std::int64_t every = 1;
  Schedule::Kind kind = Schedule::Kind::constant;
  if (name == "inverse_time") {
    kind = Schedule::Kind::inverse_time;
    t0 = spec.positive("t0");
  } else if (name == "step") {
    kind = Schedule::Kind::step;
    factor = spec.number("factor", std::nullopt, 0.0, 1.0);
    if (factor == 0) spec.expected("factor", "a decay factor in (0, 1]");
    every = spec.integer("every", std::nullopt, 1);
  }
  const std::int64_t warmup = spec.integer("warmup", 0, 0);
  spec.finish();
  return std::make_unique<Schedule>(kind, value, t0, factor, every, warmup);
}

}  // namespace sgdsim::learning
