#include "observation/blow_up.hpp"

#include <fmt/format.h>

#include "common/spec.hpp"

namespace sgdsim::observation {

const keys::Object& blow_up_keys() {
  static const keys::Object object{
      "blow_up",
      "When a run that stays finite counts as diverged: the training loss above `loss_factor` times its "
      "value "
      "at step 0 for `evaluations` trace rows in a row. It then stops as a NaN does (exit 3, status "
      "\"diverged\", the reason in summary.json).",
      {keys::number("loss_factor", "The limit, as a multiple of the step-0 training loss (0: never).")
           .fallback_to(10.0)
           .at_least(0),
       keys::integer("evaluations", "Consecutive trace rows above the limit that stop the run.")
           .fallback_to(3)
           .at_least(1)}};
  return object;
}

BlowUpRule read_blow_up(Spec& blow_up) {
  BlowUpRule rule;
  rule.loss_factor = blow_up.number("loss_factor");
  rule.evaluations = blow_up.integer("evaluations");
  blow_up.finish();
  return rule;
}

std::optional<std::string> BlowUpWatch::check(double train_loss) {
  if (!initial_) {
    initial_ = train_loss;
    return std::nullopt;
  }
  if (!(rule_.loss_factor > 0) || !(*initial_ > 0)) return std::nullopt;
  const double limit = rule_.loss_factor * *initial_;
  above_ = train_loss > limit ? above_ + 1 : 0;
  if (above_ < rule_.evaluations) return std::nullopt;
  return fmt::format(
      "training loss {:.6g} above {:g} × its step-0 value {:.6g} for {} trace rows in a row (eval.blow_up)",
      train_loss, rule_.loss_factor, *initial_, above_);
}

}  // namespace sgdsim::observation
