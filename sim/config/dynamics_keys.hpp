#pragma once
// The scenario keys of what varies during a run (docs/network.md, "Dynamics and failures"): link profiles,
// link failures, background traffic and the receive timeout (in "network"); straggler speeds, host speed
// profiles and node failures (in "compute"). Read into Dynamics, which sim/ hands to SimGrid.
#include <cstdint>
#include <string>
#include <vector>

#include "common/keys.hpp"
#include "sim/dynamics.hpp"
#include "topologies/topology.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::sim {

std::vector<keys::Key> network_dynamics_keys();
std::vector<keys::Key> compute_dynamics_keys();

// Read the keys above from the "network" and "compute" objects. Effective values (nominal × every factor)
// must stay within the bounds of the nominal ones: `host_speed` is the nominal speed.
void read_network_dynamics(Spec& network, const topology::Topology& topology, std::uint64_t seed,
                           const std::string& base_dir, Dynamics& dynamics);
void read_compute_dynamics(Spec& compute, std::size_t nodes, double host_speed, std::uint64_t seed,
                           const std::string& base_dir, Dynamics& dynamics);

}  // namespace sgdsim::sim
