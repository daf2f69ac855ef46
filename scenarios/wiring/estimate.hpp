#pragma once
// `sgdsim estimate`: what a scenario's step costs before running it (docs/compute.md, "See the prices before
// running"). The scenario is built as for a run, with its model replaced by a stand-in of the same size and
// flop count whose gradient is seeded noise (learning/stand_in_model.hpp); its first steps are simulated, so
// every charge and message goes through the same price table and network as in a run, without the model's
// math.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace sgdsim::scenarios {

// {"flops_per_sample": F, "dimension": d, "steps_simulated": k, "profile": P, "host_speed": flop/s,
//  "message_bytes": {"payload_per_message", "on_wire_per_message", "messages_per_step", "on_wire_per_step"},
//  "per_step": {"gradient_s", "encode_s", "decode_s", "mixing_s", "update_s", "communication_s", "total_s"},
//  "sources": {"gradient": [{"for", "rate", "basis", "source"}], "encode": [...], ...}}.
// `document` is a scenario (overrides applied); `origin` names it in errors, relative paths resolve against
// `base_dir`. Throws InputError for a scenario that does not validate.
nlohmann::json estimate(const nlohmann::json& document, const std::string& origin,
                        const std::string& base_dir, std::int64_t steps);

}  // namespace sgdsim::scenarios
