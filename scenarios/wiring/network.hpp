#pragma once
// The scenario's "network" object: the graph and its links (read by the topologies layer) and how the
// simulator models them (read here).
#include <cstdint>
#include <string>

#include "common/keys.hpp"
#include "sim/simulation.hpp"
#include "topologies/topology.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::scenarios {

const keys::Object& network_keys();

struct Network {
  topology::Topology topology;
  sim::NetworkOptions options;
};

// Reads and finishes `root`'s "network" object.
Network read_network(Spec& root, std::uint64_t seed, const std::string& base_dir);

}  // namespace sgdsim::scenarios
