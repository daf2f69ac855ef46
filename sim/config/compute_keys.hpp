#pragma once
// The scenario's "compute" object: how fast each simulated host does each kind of work. Model math runs at
// `host_speed` (flop/s); encoding, decoding and vector arithmetic are priced by a device profile
// (device_profile.hpp, docs/compute.md), the bundled one unless the scenario names another; any entry may be
// overridden. Stragglers, speed spread and node failures are read here too (dynamics_keys.hpp).
#include <cstdint>
#include <string>

#include "algorithms/protocols/costs.hpp"
#include "common/keys.hpp"
#include "sim/dynamics.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::sim {

const keys::Object& compute_keys();

struct ComputeSetup {
  double host_speed = 0;  // flop/s of model math
  protocols::Costs costs;
};

// Reads and finishes `root`'s "compute" object; a profile path is relative to `base_dir`. The resolved
// scenario receives every effective entry, so that it reproduces the run whatever the profile file becomes.
// Straggler speeds, speed profiles and node failures of `nodes` nodes go to `dynamics` (when given).
ComputeSetup read_compute(Spec& root, const std::string& base_dir, std::size_t nodes = 0,
                          std::uint64_t seed = 0, Dynamics* dynamics = nullptr);

}  // namespace sgdsim::sim
