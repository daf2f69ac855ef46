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
                    "The local optimizer (momentum, weight decay); plain SGD by default.")},
      std::nullopt, {},
      {{"fires_triggers", "Sends only when an event trigger fires: the trace's triggers column counts them."},
       {"survives_failures",
        "Handles a missing message as docs/protocols.md says, so it may run with network.receive_timeout > "
        "0."},
       {"takes_late_messages",
        "Each of its channels carries one message (or silence) per round, so a late message kept for the "
        "next receive (network.late_messages \"keep\") is read as its round's, a round late."},
       {"time_dependent",
        "What its nodes compute depends on simulated time (e.g. the order in which messages arrive), not "
        "only "
        "on the scenario's learning keys: a run cannot be re-timed under other timing settings."}});
  return family;
}

std::unique_ptr<Protocol> make_protocol(Spec& spec, const Environment& environment) {
  if (environment.lossy && !spec.kind()->has("survives_failures"))
    spec.fail("kind", "\"" + spec.kind_name() +
                          "\" does not handle lost messages; it cannot run with network.receive_timeout > 0");
  auto protocol = protocols().factory(spec.kind_name()).build(spec, environment);
  spec.finish();
  return protocol;
}

bool time_dependent(const nlohmann::json& algorithm) {
  for (const keys::Kind* kind : keys::chosen_kinds(protocols(), algorithm))
    if (kind->family->knows("time_dependent") && kind->has("time_dependent")) return true;
  return false;
}

}  // namespace sgdsim::protocols
