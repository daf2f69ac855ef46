#pragma once
// A scenario, fully validated and ready to simulate: every layer has read its part of the JSON (unknown keys
// are errors), the data is loaded and partitioned, the protocol built. Nothing is written until all of that
// succeeded.
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/learning/dataset.hpp"
#include "algorithms/learning/model.hpp"
#include "algorithms/learning/partition.hpp"
#include "algorithms/protocols/protocol.hpp"
#include "common/error.hpp"
#include "common/keys.hpp"
#include "common/wall_clock.hpp"
#include "observation/observer.hpp"
#include "observation/schedule.hpp"
#include "sim/simulation.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::scenarios {

// The declarations of every key of a scenario document (the root of the JSON Schema and the key reference).
const keys::Object& scenario_keys();

// How a scenario is built, besides its document.
struct BuildOptions {
  // The model replaced by a stand-in of the same size, tensors and flop count whose gradient is seeded noise
  // (learning/stand_in_model.hpp): `sgdsim estimate` simulates steps without the model's math.
  bool stand_in_model = false;
};

// Why a run of the resolved `algorithm` on `network` cannot be re-timed (what its nodes compute depends on
// simulated time: a kind it chooses declares "time_dependent", or receives may time out); empty when it can.
std::string why_time_dependent(const nlohmann::json& algorithm, const sim::NetworkOptions& network);
// Settings of the resolved scenario that run but depart from a paper (summary.json's `warnings`), each also
// printed on stderr naming `origin`.
std::vector<std::string> settings_warnings(const nlohmann::json& resolved, const std::string& origin);

class Scenario {
 public:
  // `origin` names the document in error messages (usually its file); relative paths inside it resolve
  // against `base_dir`. Throws InputError on any invalid or inconsistent value.
  Scenario(const nlohmann::json& document, const std::string& origin, const std::string& base_dir,
           const BuildOptions& options = {});
  Scenario(const Scenario&) = delete;
  Scenario& operator=(const Scenario&) = delete;

  const nlohmann::json& resolved() const { return resolved_; }
  const std::string& name() const { return name_; }
  std::uint64_t seed() const { return seed_; }
  // The physical network (network.topology), and the logical graph the protocol mixes over
  // (algorithm.graph; the physical network when not given).
  const topology::Topology& topology() const { return topology_; }
  const topology::Topology& graph() const { return logical_ ? *logical_ : topology_; }
  const sim::NetworkOptions& network() const { return network_; }
  const learning::Problem& problem() const { return problem_; }
  const learning::Model& model() const { return *model_; }
  std::size_t dimension() const { return model_->dimension(); }
  const std::string& algorithm() const { return algorithm_; }
  // Whether what the nodes compute depends on simulated time: the protocol (or a kind it chooses, such as
  // its collective) declares "time_dependent", or receives may time out (network.receive_timeout > 0). Such a
  // run cannot be re-timed exactly under other timing settings.
  bool time_dependent() const;
  // Why (empty when it does not): names the kind or the key.
  std::string why_time_dependent() const;
  // The folder relative paths of the scenario resolve against (absolute).
  const std::string& base_dir() const { return base_dir_; }
  // Makes simulate() record the run's schedule (observation/schedule.hpp), available afterwards from
  // schedule() when the run completed. Throws InputError when the run cannot be re-timed (time_dependent()).
  void record_schedule();
  const std::optional<observation::Schedule>& schedule() const { return schedule_; }
  const std::vector<learning::Shard>& shards() const { return shards_; }
  // For in-process protocol tests that drive the nodes through another Port and probe.
  protocols::Environment& environment() { return environment_; }
  protocols::Protocol& protocol() { return *protocol_; }

  // Simulates the scenario (once per process), writing trace rows to `trace` as they complete. Returns the
  // summary (status, final row, totals, per-node totals, wall-clock split). A run that diverges stops at the
  // first non-finite value; its summary says where, and diverged() holds it afterwards. `threads` threads
  // compute the gradients (common/worker_pool.hpp); the results do not depend on how many.
  // With a `recording`, what each link carried (and the timeline, when asked) is filled in; the timeline's
  // spans are tagged with the step each node was computing.
  nlohmann::json simulate(std::ostream& trace, bool progress, std::size_t threads = 1,
                          sim::Recording* recording = nullptr);
  const std::optional<Diverged>& diverged() const { return diverged_; }
  // Leaves the test set out of the trace (no test accuracy): for simulations that only measure a few steps
  // (validate's per-step figures), where evaluating a deep model on the test set would cost more than them.
  void skip_test_evaluation() { problem_.test = learning::Dataset{}; }
  // The estimated peak memory (bytes) and its parts, as checked against memory_limit() during validation.
  const std::vector<std::pair<std::string, double>>& memory_estimate() const { return memory_; }
  // Settings that run but depart from a paper (summary.json's `warnings`), as printed when read.
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  std::vector<std::string> warnings_;  // printed when made; summary.json's `warnings`
  nlohmann::json resolved_;
  std::string name_;
  std::uint64_t seed_ = 1;
  topology::Topology topology_;
  std::optional<topology::Topology> logical_;  // algorithm.graph, when given
  sim::NetworkOptions network_;
  learning::Problem problem_;
  std::vector<learning::Shard> shards_;
  std::unique_ptr<learning::Model> model_;
  std::string algorithm_;
  observation::ObserverOptions observer_options_;
  bool solve_optimum_ = false;
  WallClock clock_;
  protocols::Environment environment_;
  std::vector<std::vector<float>> node_states_;  // BatchNorm statistics of every node (environment_.states)
  std::unique_ptr<protocols::Protocol> protocol_;
  std::optional<Diverged> diverged_;
  std::vector<std::pair<std::string, double>> memory_;
  std::string base_dir_;
  bool record_ = false;
  std::optional<observation::Schedule> schedule_;
};

// Reads a scenario file (comments allowed) and applies "path=value" overrides in order.
nlohmann::json load_document(const std::string& file, const std::vector<std::string>& overrides);

// What `run --timeline` records: the steps and the most spans (sim::TimelineOptions).
struct TimelineRequest {
  std::int64_t first_step = 1, last_step = std::numeric_limits<std::int64_t>::max();
  std::size_t max_spans = 1'000'000;
};

// `sgdsim run`: validates, simulates and writes DIR/{trace.csv, summary.json, resolved.json, links.csv} (and
// timeline.json with a `timeline`, schedule.bin with `record`) atomically (a temporary sibling renamed into
// place; trace.csv grows there row by row, see in_progress_folder()). Refuses an existing DIR unless `force`.
// A run that diverged is written like any other, then its Diverged is thrown (the CLI exits with
// exit_diverged).
void run_to_directory(const std::string& file, const std::vector<std::string>& overrides,
                      const std::string& directory, bool force, bool progress, std::size_t threads = 1,
                      const std::optional<TimelineRequest>& timeline = std::nullopt, bool record = false);

}  // namespace sgdsim::scenarios
