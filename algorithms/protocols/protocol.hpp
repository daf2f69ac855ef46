#pragma once
// A protocol is the per-node loop of a paper's pseudo-code. It sees its node's state, a compressor, the model
// and data, and a transport Port; never SimGrid. `run(node, port)` is called once per node, as that node's
// actor.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/learning/augment.hpp"
#include "algorithms/learning/dataset.hpp"
#include "algorithms/learning/learning_rate.hpp"
#include "algorithms/learning/model.hpp"
#include "algorithms/learning/partition.hpp"
#include "algorithms/protocols/port.hpp"
#include "algorithms/protocols/prices.hpp"
#include "algorithms/protocols/probe.hpp"
#include "common/keys.hpp"
#include "common/wall_clock.hpp"
#include "common/worker_pool.hpp"
#include "topologies/topology.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::protocols {

// What every protocol shares, read-only (the probe excepted), and owned by the caller.
struct Environment {
  const topology::Topology* topology = nullptr;  // the logical graph gossip mixes over (algorithm.graph)
  const topology::Topology* network = nullptr;   // the physical network (network.topology), for collectives
  const learning::Model* model = nullptr;
  const learning::Dataset* train = nullptr;
  const std::vector<learning::Shard>* shards = nullptr;
  std::size_t batch_size = 1;
  std::uint64_t seed = 0;
  Probe* probe = nullptr;
  WallClock* clock = nullptr;  // may be null
  // What each piece of work costs in simulated time: protocols register the prices of their work here while
  // they are built (a gradient, a codec configuration, vector arithmetic) and charge amounts of them to their
  // Port, which prices them with this table. Shared with the simulator; the default charges gradients only.
  std::shared_ptr<PriceTable> prices = std::make_shared<PriceTable>();
  nlohmann::json model_spec;  // the model's resolved scenario object: names the gradient's price
  bool lossy = false;         // messages can be lost (failures): only kinds with "survives_failures" run
  // Per-node model state (BatchNorm running statistics): one vector of model->state_dimension() values per
  // node, owned by the caller; null when the model has none (LocalStep then keeps its own). LocalStep updates
  // node i's, observe() hands it to the probe.
  std::vector<std::vector<float>>* states = nullptr;
  // Crops and flips of every minibatch (image data); inactive unless the scenario asks.
  learning::Augmentation augmentation{0, false};
  // Threads for the real math (gradients); null: each node computes in its own actor. Never changes a
  // result, only which thread computes it (LocalStep::gradient).
  WorkerPool* pool = nullptr;
};

// The physical network of `environment` (its logical graph when no network was given: in-process tests).
inline const topology::Topology* physical_network(const Environment& environment) {
  return environment.network ? environment.network : environment.topology;
}

class Protocol {
 public:
  virtual ~Protocol() = default;
  // The whole life of one node. Called from that node's actor; nodes interleave only at Port calls.
  virtual void run(std::size_t node, protocols::Port& port) = 0;
  // Called once after the simulation ended normally: end-of-run self checks (e.g. copy consistency).
  virtual void finish() {}
  // An asynchronous protocol answers its peers while its node computes: when serves() is true, serve(node,
  // port) runs as a second actor on node's host, with its own port (request_inbox(port) takes the requests,
  // replies go by send(); requests.hpp), from the start until every run() has returned; then it is stopped
  // wherever it waits, so it may loop forever. Its work shares the host with run()'s, and run()'s port sends
  // the requests (requester(port)).
  virtual bool serves() const { return false; }
  virtual void serve(std::size_t node, protocols::Port& port) {
    (void)node;
    (void)port;
  }
};

// Vectors of d floats one node holds at its peak for a protocol (its models and copies, messages in flight
// counted as fp32), for the memory estimate (footprint.hpp). Given the algorithm object before it is
// validated (read it leniently: anything unexpected means the general case) and the graph's mean degree.
using VectorsPerNode = std::function<double(const nlohmann::json& algorithm, double mean_degree)>;

// The averaged minibatch gradient ĝ = (1/n) Σ_i decode(encode(g_i)) that a data-parallel kind applies, which
// the estimator-variance columns (eval.variance_draws) measure: the compressor object of the workers'
// gradients, or (compressor null) why the kind's settings apply something else.
struct AveragedGradient {
  nlohmann::json compressor;
  std::string why_not;
};
using AveragedGradientOf = std::function<AveragedGradient(const nlohmann::json& resolved_algorithm)>;

// What a protocol kind registers besides its declaration (keys::Kind, with its capabilities): how to build
// it, and the facts the rest of the program asks of it without knowing it.
struct ProtocolFactory {
  std::function<std::unique_ptr<Protocol>(Spec&, const Environment&)> build;
  VectorsPerNode vectors_per_node;
  AveragedGradientOf averaged_gradient = {};  // empty: the kind has no such estimator
};

// The protocol kinds (the scenario's "algorithm"). Each registers itself from its own file with its keys,
// its capabilities (the family declares the names it knows, with their help: fires_triggers,
// survives_failures, time_dependent) and its ProtocolFactory.
keys::Registry<ProtocolFactory>& protocols();

// Builds the protocol of a Spec of the protocol family (kind already read), finishing it.
std::unique_ptr<Protocol> make_protocol(Spec& algorithm, const Environment& environment);

// Whether a run of this algorithm (its resolved object) depends on simulated time: its kind, or a kind it
// chooses (a collective), has the capability "time_dependent". Such a run cannot be re-timed exactly.
bool time_dependent(const nlohmann::json& algorithm);

}  // namespace sgdsim::protocols
