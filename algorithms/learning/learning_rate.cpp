#include "algorithms/learning/learning_rate.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

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

// η_t = value · factor^(number of milestones ≤ t): the ResNet recipe's "divide by 10 at 50 % and 75 %".
class MultiStep final : public LearningRate {
 public:
  MultiStep(double value, double factor, std::vector<std::int64_t> milestones, std::int64_t warmup)
      : value_(value), factor_(factor), milestones_(std::move(milestones)), warmup_(warmup) {}
  double at(std::int64_t step) const override {
    const auto passed = std::upper_bound(milestones_.begin(), milestones_.end(), step) - milestones_.begin();
    double rate = value_ * std::pow(factor_, static_cast<double>(passed));
    if (step < warmup_)
      rate *= (static_cast<double>(std::max<std::int64_t>(step, 0)) + 1.0) / static_cast<double>(warmup_);
    return rate;
  }

 private:
  double value_, factor_;
  std::vector<std::int64_t> milestones_;
  std::int64_t warmup_;
};

std::unique_ptr<LearningRate> make(Spec& spec, Schedule::Kind kind, double t0, double factor,
                                   std::int64_t every) {
  const double value = spec.number("value");
  const std::int64_t warmup = spec.integer("warmup");
  return std::make_unique<Schedule>(kind, value, t0, factor, every, warmup);
}

const bool registered_learning_rate =
    learning_rates().add({"constant", "η_t = value.", {}, {}},
                         [](Spec& spec) { return make(spec, Schedule::Kind::constant, 0, 1, 1); }) &&
    learning_rates().add(
        {"inverse_time",
         "η_t = value · t0 / (t0 + t).",
         {keys::number("t0", "Steps until the rate has halved.").above(0).in_unit("steps")},
         {}},
        [](Spec& spec) { return make(spec, Schedule::Kind::inverse_time, spec.number("t0"), 1, 1); }) &&
    learning_rates().add(
        {"step",
         "η_t = value · factor^⌊t / every⌋.",
         {keys::number("factor", "Decay factor applied every `every` steps.").above(0).at_most(1),
          keys::integer("every", "Steps between decays.").at_least(1).in_unit("steps")},
         {}},
        [](Spec& spec) {
          const double factor = spec.number("factor");
          return make(spec, Schedule::Kind::step, 0, factor, spec.integer("every"));
        }) &&
    learning_rates().add(
        {"multistep",
         "η_t = value · factor^(number of milestones ≤ t), e.g. the ResNet recipe's decay by 10 at given "
         "steps.",
         {keys::number("factor", "Decay factor applied at each milestone.").above(0).at_most(1),
          keys::integers("milestones", "Steps at which the rate is multiplied by `factor`, increasing.")
              .in_unit("steps")},
         {}},
        [](Spec& spec) {
          const double factor = spec.number("factor");
          const std::vector<std::int64_t> milestones = spec.integers("milestones");
          for (std::size_t k = 0; k < milestones.size(); ++k) {
            if (milestones[k] < 1 || (k > 0 && milestones[k] <= milestones[k - 1]))
              spec.fail("milestones", "must be positive and strictly increasing");
          }
          const double value = spec.number("value");
          return std::make_unique<MultiStep>(value, factor, milestones, spec.integer("warmup"));
        });

}  // namespace

keys::Registry<LearningRateFactory>& learning_rates() {
  static keys::Registry<LearningRateFactory> family(
      "lr", "schedule", "A learning-rate schedule η_t (t counts steps from 0).",
      {keys::number("value", "The base rate η_0.").above(0),
       keys::integer("warmup",
                     "Steps of linear warm-up: the rate is scaled by (t + 1) / warmup while t < warmup.")
           .fallback_to(0)
           .at_least(0)
           .in_unit("steps")},
      keys::Shorthand{keys::Type::number, "constant", "value"}, "constant");
  return family;
}

std::unique_ptr<LearningRate> make_learning_rate(Spec& spec) {
  auto rate = learning_rates().factory(spec.kind_name())(spec);
  spec.finish();
  return rate;
}

}  // namespace sgdsim::learning
