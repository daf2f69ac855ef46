#include "algorithms/protocols/trigger.hpp"

#include <cmath>

#include "common/spec.hpp"

namespace sgdsim::protocols {

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

keys::Registry<TriggerFactory>& triggers() {
  static keys::Registry<TriggerFactory> family(
      "trigger", "schedule", "SPARQ-SGD's threshold c_t: a node fires when ||x_half − x̂_i||² > c_t · η_t².",
      {keys::number("c0", "The threshold's base value c_0 (0: always fire).").fallback_to(0.0).at_least(0)},
      {}, "constant");
  return family;
}

namespace {
const bool registered_trigger =
    triggers().add({"constant", "c_t = c0.", {}, {}},
                   [](Spec& spec) { return Trigger(Trigger::Schedule::constant, spec.number("c0")); }) &&
    triggers().add({"poly",
                    "c_t = c0 · t^(1 − epsilon), the increasing threshold of the strongly convex analysis.",
                    {keys::number("epsilon", "The exponent's ε.").fallback_to(0.5).between(0, 1)},
                    {}},
                   [](Spec& spec) {
                     const double c0 = spec.number("c0");
                     return Trigger(Trigger::Schedule::poly, c0, spec.number("epsilon"));
                   }) &&
    triggers().add(
        {"step",
         "c_t = c0 + increment · ⌊t / every⌋.",
         {keys::number("increment", "Added to the threshold every `every` steps.")
              .fallback_to(1.0)
              .at_least(0),
          keys::integer("every", "Steps between increments.").fallback_to(1000).at_least(1).in_unit("steps")},
         {}},
        [](Spec& spec) {
          const double c0 = spec.number("c0");
          const double increment = spec.number("increment");
          return Trigger(Trigger::Schedule::step, c0, 0.5, increment, spec.integer("every"));
        });
}  // namespace

Trigger make_trigger(Spec& spec) {
  Trigger trigger = triggers().factory(spec.kind_name())(spec);
  spec.finish();
  return trigger;
}

}  // namespace sgdsim::protocols
