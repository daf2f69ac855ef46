#pragma once
// A run that blows up while staying finite: the training loss of the average model above `loss_factor` times
// its value at step 0 for `evaluations` trace rows in a row. Such a run stops as diverged, like one whose
// loss is NaN (docs/learning.md, "Divergence"). The rule is ours, not a paper's.
#include <cstdint>
#include <optional>
#include <string>

#include "common/keys.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::observation {

struct BlowUpRule {
  double loss_factor = 0;  // 0: off
  std::int64_t evaluations = 1;
};

// The keys of eval.blow_up, and reading them.
const keys::Object& blow_up_keys();
BlowUpRule read_blow_up(Spec& blow_up);

class BlowUpWatch {
 public:
  explicit BlowUpWatch(BlowUpRule rule) : rule_(rule) {}
  // Called with every trace row's training loss, in order; what tripped the rule when it does.
  std::optional<std::string> check(double train_loss);

 private:
  BlowUpRule rule_;
  std::optional<double> initial_;
  std::int64_t above_ = 0;  // consecutive rows above the limit
};

}  // namespace sgdsim::observation
