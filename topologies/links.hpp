#pragma once
// Bandwidth and latency of every edge: the scenario's defaults ("link"), random heterogeneity
// ("heterogeneity") and per-edge or per-node overrides ("overrides"). See docs/network.md for the law.
#include <cstdint>

#include "topologies/topology.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::topology {

// Declarations of the "link", "heterogeneity" and each "overrides" object.
const keys::Object& link_keys();
const keys::Object& heterogeneity_keys();
const keys::Object& override_keys();

// The "link" object: defaults for every edge.
Link read_default_link(Spec& network);

// Applies "heterogeneity" then "overrides" from `network` to the edges of `topology`.
void apply_link_variations(Spec& network, std::uint64_t seed, Topology& topology);

}  // namespace sgdsim::topology
