#include "algorithms/protocols/protocol.hpp"

#include "algorithms/learning/learning_rate.hpp"
#include "algorithms/protocols/optimizer.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

keys::Registry<ProtocolFactory>& protocols() {
  static keys::Registry<ProtocolFactory> family(
      "protocol", "kind", "The distributed training algorithm: the per-node loop of a paper's pseudo-code.",
      {keys::integer("steps", "Training steps (iterations) of every node.").at_least(1),
       keys::variant("lr", learning::learning_rates(), "The learning rate η_t."),
       keys::object("optimizer", optimizer_keys(),
                    "The local optimizer (momentum, weight decay); plain SGD by default.")});
  return family;
}

std::unique_ptr<Protocol> make_protocol(Spec& spec, const Environment& environment) {
  auto protocol = protocols().factory(spec.kind_name())(spec, environment);
  spec.finish();
  return protocol;
}

}  // namespace sgdsim::protocols
