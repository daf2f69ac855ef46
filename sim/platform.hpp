#pragma once
// The SimGrid platform of a topology: one host per node, one split-duplex link per edge, one-hop routes only.
// Internal to sim/: callers outside this folder use simulate().
#include <vector>

#include "sim/dynamics.hpp"
#include "sim/traffic_meter.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::sim {

// Must run after the Engine exists and its network model is configured. Returns the host of each node and
// appends every direction of every link to `links` (edge k's a->b, then its b->a). Links and hosts follow
// `dynamics` (SimGrid profiles), whose changes are counted in `budget`: past its limit they stop.
std::vector<simgrid::s4u::Host*> build_platform(const topology::Topology& topology, double host_speed,
                                                const Dynamics& dynamics, std::vector<PlatformLink>& links,
                                                EventBudget& budget);

}  // namespace sgdsim::sim
