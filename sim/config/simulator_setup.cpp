#include "sim/config/simulator_setup.hpp"

#include "common/error.hpp"
#include "common/spec.hpp"
#include "sim/config/compute_keys.hpp"
#include "sim/config/network_keys.hpp"

namespace sgdsim::sim {

SimulatorSetup read_simulator(Spec& root, std::uint64_t seed, const std::string& base_dir) {
  NetworkSetup network = read_network(root, seed, base_dir);
  SimulatorSetup setup;
  setup.topology = std::move(network.topology);
  setup.network = std::move(network.options);
  ComputeSetup compute = read_compute(root, base_dir, setup.topology.nodes, seed, &setup.network.dynamics);
  setup.network.host_speed = compute.host_speed;
  setup.costs = compute.costs;
  if (setup.network.dynamics.has_failures() && setup.network.dynamics.receive_timeout <= 0)
    throw InputError(root.file() +
                     ": $.network.receive_timeout: must be > 0 when links or nodes can fail (a "
                     "receive from a failed neighbour would wait forever)");
  return setup;
}

}  // namespace sgdsim::sim
