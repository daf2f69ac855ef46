#pragma once
// Piecewise-constant factors of simulated time (the "time_profile" family: steps, trace, random), which
// multiply a nominal value: a link's bandwidth or latency, a host's speed. Read into sim::Profile.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "common/keys.hpp"
#include "sim/dynamics.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::sim {

// The family of time profiles (kinds steps, trace, random).
keys::Family& time_profiles();

// The JSON Schema of [[time, value], ...] pairs (also the shape of failure intervals).
const nlohmann::json& time_pairs_shape();

// Reads `parent`'s time profile `key`; `seed` seeds its random episodes, files resolve against `base_dir`.
Profile read_time_profile(Spec& parent, const std::string& key, const std::string& base_dir,
                          std::uint64_t seed);

}  // namespace sgdsim::sim
