// `sgdsim topology S.json`: the scenario's network at a glance (nodes, edges, degrees, diameter, spectral
// gap). Reads only the scenario's "seed" and "network", so it works on a scenario whose other parts are
// unfinished.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "app/commands.hpp"
#include "common/error.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"
#include "scenarios/wiring/scenario.hpp"
#include "sim/config/compute_keys.hpp"
#include "sim/config/network_keys.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::app {

namespace {

struct TopologyOptions {
  std::string scenario;
  std::vector<std::string> overrides;  // --set path=value, as for run
  std::string weights = "metropolis";
  bool json_output = false;
  std::string link;     // "a-b": print the profiles this link follows
  long long node = -1;  // >= 0: print the speed profile this node's host follows
  double until = 60;    // seconds of profile to print
};

// `--link a-b` / `--node i`: the profiles SimGrid is given for that link or host, as `time value` lines
// (node failures included: they take the node's links down and stop its host).
void print_profiles(const TopologyOptions& options, const topology::Topology& topology, Spec& root,
                    const sim::Dynamics& network_dynamics, std::uint64_t seed, const std::string& base_dir) {
  sim::Dynamics dynamics = network_dynamics;
  sim::read_compute(root, base_dir.empty() ? "." : base_dir, topology.nodes, seed, &dynamics);
  char until[32];
  std::snprintf(until, sizeof until, "%g", options.until);
  if (!std::isfinite(options.until) || options.until < 0)
    throw InputError(std::string("--until: expected a finite number of seconds >= 0, found ") + until);
  json out = json::object();
  const auto series = [&](const char* name, const std::vector<sim::Profile>& parts, double scale) {
    // Random profiles change without end: a long --until must not print (or hold) billions of lines.
    constexpr std::size_t max_points = 1000000;
    const auto changes = sim::profile_until(parts, options.until, max_points);
    if (changes.size() > max_points) {
      throw InputError(std::string("--until ") + until + ": the " + name + " profile changes more than " +
                       std::to_string(max_points) + " times by then; give a shorter --until");
    }
    json points = json::array();
    for (const auto& [t, v] : changes) points.push_back({t, v * scale});
    out[name] = points;
  };
  if (!options.link.empty()) {
    std::size_t a = 0, b = 0;
    const std::size_t dash = options.link.find('-');
    const auto digits = [](const std::string& text) {
      return !text.empty() && text.size() <= 9 && text.find_first_not_of("0123456789") == std::string::npos;
    };
    if (dash == std::string::npos || !digits(options.link.substr(0, dash)) ||
        !digits(options.link.substr(dash + 1)))
      throw InputError("--link: expected a-b (two node ids), found \"" + options.link + "\"");
    a = std::stoul(options.link.substr(0, dash));
    b = std::stoul(options.link.substr(dash + 1));
    if (a > b) std::swap(a, b);
    const auto edge = topology::edge_index(topology, a, b);
    if (!edge)
      throw InputError("--link: no edge between nodes " + std::to_string(a) + " and " + std::to_string(b));
    const std::size_t k = *edge;
    const sim::ResolvedLink link = sim::resolved_link(dynamics, k, a, b);
    series("bandwidth_Bps", link.bandwidth, topology.edges[k].link.bandwidth);
    series("latency_s", link.latency, topology.edges[k].link.latency);
    series("state", link.state, 1.0);
  } else {
    if (static_cast<std::size_t>(options.node) >= topology.nodes)
      throw InputError("--node: expected a node id below " + std::to_string(topology.nodes));
    series("speed_factor", sim::resolved_speed(dynamics, static_cast<std::size_t>(options.node)), 1.0);
  }
  if (options.json_output) {
    std::printf("%s\n", out.dump(2).c_str());
    return;
  }
  for (const auto& [name, points] : out.items()) {
    std::printf("# %s until %g s\n", name.c_str(), options.until);
    for (const auto& point : points)
      std::printf("%.9g %.9g\n", point[0].get<double>(), point[1].get<double>());
  }
}

void print_topology(const TopologyOptions& options) {
  const json document = scenarios::load_document(options.scenario, options.overrides);
  json resolved;
  Spec root(document, options.scenario, "", resolved, scenarios::scenario_keys());
  // The scenario loader's own readers, so the graph printed is the graph a run uses.
  const auto seed = static_cast<std::uint64_t>(root.integer("seed"));
  const std::string base_dir = std::filesystem::path(options.scenario).parent_path().string();
  const sim::NetworkSetup network = sim::read_network(root, seed, base_dir);
  const topology::Topology& topology = network.topology;
  const std::string& model = network.options.model;
  if (!options.link.empty() || options.node >= 0) {
    print_profiles(options, topology, root, network.options.dynamics, seed, base_dir);
    return;
  }

  std::size_t min_degree = topology.nodes ? SIZE_MAX : 0, max_degree = 0;
  for (std::size_t i = 0; i < topology.nodes; ++i) {
    min_degree = std::min(min_degree, topology.degree(i));
    max_degree = std::max(max_degree, topology.degree(i));
  }
  double min_bandwidth = 0, max_bandwidth = 0, min_latency = 0, max_latency = 0;
  for (std::size_t k = 0; k < topology.edges.size(); ++k) {
    const auto& link = topology.edges[k].link;
    min_bandwidth = k ? std::min(min_bandwidth, link.bandwidth) : link.bandwidth;
    max_bandwidth = k ? std::max(max_bandwidth, link.bandwidth) : link.bandwidth;
    min_latency = k ? std::min(min_latency, link.latency) : link.latency;
    max_latency = k ? std::max(max_latency, link.latency) : link.latency;
  }
  const std::size_t hops = topology::diameter(topology);
  // A network of switches links no node to another: there is nothing to mix over (algorithm.graph is).
  const bool switched = !topology.routers.empty();
  const double delta =
      switched ? 0.0 : topology::spectral_gap(topology, topology::make_mixing(topology, options.weights));

  if (options.json_output) {
    const json out = {
        {"kind", topology.kind},
        {"nodes", topology.nodes},
        {"switches", topology.routers.size()},
        {"edges", topology.edges.size()},
        {"degree_min", min_degree},
        {"degree_max", max_degree},
        {"diameter", hops},
        {"weights", options.weights},
        {"spectral_gap", switched ? json(nullptr) : json(delta)},
        {"spectral_gap_method", topology.nodes > topology::dense_gap_limit ? "lanczos" : "dense"},
        {"bandwidth_min_Bps", min_bandwidth},
        {"bandwidth_max_Bps", max_bandwidth},
        {"latency_min_s", min_latency},
        {"latency_max_s", max_latency},
        {"model", model},
        {"seed", seed}};
    std::printf("%s\n", out.dump(2).c_str());
    return;
  }
  std::printf("topology:     %s (seed %llu)\n", topology.kind.c_str(), static_cast<unsigned long long>(seed));
  std::printf("nodes:        %zu\n", topology.nodes);
  std::printf("edges:        %zu\n", topology.edges.size());
  std::printf("degree:       %zu..%zu\n", min_degree, max_degree);
  std::printf("diameter:     %zu hops\n", hops);
  if (switched)
    std::printf("switches:     %zu (no node linked to another: gossip mixes over algorithm.graph)\n",
                topology.routers.size());
  else
    std::printf("spectral gap: %.6g (%s weights%s)\n", delta, options.weights.c_str(),
                topology.nodes > topology::dense_gap_limit ? ", Lanczos estimate" : "");
  std::printf("bandwidth:    %.6g..%.6g Mbps\n", min_bandwidth * 8e-6, max_bandwidth * 8e-6);
  std::printf("latency:      %.6g..%.6g us\n", min_latency * 1e6, max_latency * 1e6);
  std::printf("model:        %s\n", model.c_str());
}

}  // namespace

void add_topology_command(CLI::App& root) {
  auto options = std::make_shared<TopologyOptions>();
  auto* cmd = root.add_subcommand(
      "topology", "Print a scenario's network: nodes, edges, degree range, diameter and spectral gap delta");
  cmd->add_option("scenario", options->scenario,
                  "Scenario JSON file (only \"seed\" and \"network\" are read)")
      ->required();
  cmd->add_option("--set", options->overrides,
                  "Override a value by dotted path (as for run), e.g. --set network.topology.nodes=64")
      ->take_all();
  cmd->add_flag("--json", options->json_output, "Machine-readable output");
  cmd->add_option("--weights", options->weights, "Mixing weights used for the spectral gap")
      ->check(CLI::IsMember({"metropolis", "uniform"}))
      ->capture_default_str();
  cmd->add_option("--link", options->link,
                  "Print the bandwidth, latency and state profiles link a-b follows (time value lines)");
  cmd->add_option("--node", options->node, "Print the speed factor profile node i's host follows")
      // CLI::NonNegativeNumber's message quotes DBL_MAX's 309 digits: say what is expected instead.
      ->check(CLI::Validator(
          [](std::string& value) {
            return value.starts_with('-') ? "expected a node id >= 0, found " + value : std::string();
          },
          "NODE"));
  cmd->add_option("--until", options->until, "Seconds of profile to print")->capture_default_str();
  cmd->callback([options] { print_topology(*options); });
}

}  // namespace sgdsim::app
