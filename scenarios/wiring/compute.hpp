#pragma once
// The scenario's "compute" object: how fast each simulated host does each kind of work. Model math runs at
// `host_speed` (flop/s); encoding, decoding and vector arithmetic are priced by a device profile
// (docs/compute.md), the bundled one unless the scenario names another; any entry may be overridden.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "algorithms/protocols/costs.hpp"
#include "common/keys.hpp"
#include "sim/dynamics.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::scenarios {

const keys::Object& compute_keys();
// The keys of a profile file.
const keys::Object& profile_keys();

struct Compute {
  double host_speed = 0;  // flop/s of model math
  protocols::Costs costs;
};

// Reads and finishes `root`'s "compute" object; a profile path is relative to `base_dir`. The resolved
// scenario receives every effective entry, so that it reproduces the run whatever the profile file becomes.
// Straggler speeds, speed profiles and node failures of `nodes` nodes go to `dynamics` (when given).
Compute read_compute(Spec& root, const std::string& base_dir, std::size_t nodes = 0, std::uint64_t seed = 0,
                     sim::Dynamics* dynamics = nullptr);

// The bundled profile (profiles/default.json, compiled in).
std::string_view default_profile_text();

}  // namespace sgdsim::scenarios
