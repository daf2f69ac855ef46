#pragma once
// The simulator's part of a scenario, its "network" and "compute" objects, read together: a failure of
// either (a link or a node) needs the network's receive_timeout.
#include <cstdint>
#include <string>

#include "algorithms/protocols/costs.hpp"
#include "sim/simulation.hpp"
#include "topologies/topology.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::sim {

struct SimulatorSetup {
  topology::Topology topology;
  NetworkOptions network;  // the compute object's host speed and dynamics included
  protocols::Costs costs;  // what each kind of a node's work costs in simulated time
};

// Reads and finishes `root`'s "network" and "compute" objects.
SimulatorSetup read_simulator(Spec& root, std::uint64_t seed, const std::string& base_dir);

}  // namespace sgdsim::sim
