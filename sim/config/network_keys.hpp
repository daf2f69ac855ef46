#pragma once
// The scenario's "network" object: the graph and its links (declared and read by the topologies layer), and
// how the simulator models them: the network model, the framing of messages (header_bytes, mtu) and what
// varies or fails during the run (dynamics_keys.hpp).
#include <cstdint>
#include <string>

#include "common/keys.hpp"
#include "sim/simulation.hpp"
#include "topologies/topology.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::sim {

const keys::Object& network_keys();

struct NetworkSetup {
  topology::Topology topology;
  NetworkOptions options;  // host_speed is the compute object's (compute_keys.hpp)
};

// Reads and finishes `root`'s "network" object.
NetworkSetup read_network(Spec& root, std::uint64_t seed, const std::string& base_dir);

}  // namespace sgdsim::sim
