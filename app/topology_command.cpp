// `sgdsim topology S.json`: the scenario's network at a glance (nodes, edges, degrees, diameter, spectral
// gap). Reads only the scenario's "seed" and "network", so it works on a scenario whose other parts are
// unfinished.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "app/commands.hpp"
#include "common/regular_file.hpp"
#include "common/spec.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::app {

namespace {

struct TopologyOptions {
  std::string scenario;
  std::string weights = "metropolis";
  bool json_output = false;
};

void print_topology(const TopologyOptions& options) {
  const json document =
      parse_json_text(read_regular_file(options.scenario, max_json_file_bytes), options.scenario);
  json resolved;
  Spec root(document, options.scenario, "", resolved);
  // Same defaults as the scenario loader, so the graph printed is the graph a run uses.
  const auto seed = static_cast<std::uint64_t>(root.integer("seed", 1, 0));
  Spec network = root.object("network");
  const std::string base_dir = std::filesystem::path(options.scenario).parent_path().string();
  const topology::Topology topology = topology::make_topology(network, seed, base_dir);
  const std::string model = network.choice("model", {"ideal", "tcp"}, "ideal");
  network.integer("header_bytes", 0, 0, 1 << 30);
  network.finish();

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
  const double delta = topology::spectral_gap(topology, topology::make_mixing(topology, options.weights));

  if (options.json_output) {
    const json out = {
        {"kind", topology.kind},
        {"nodes", topology.nodes},
        {"edges", topology.edges.size()},
        {"degree_min", min_degree},
        {"degree_max", max_degree},
        {"diameter", hops},
        {"weights", options.weights},
        {"spectral_gap", delta},
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
  cmd->add_flag("--json", options->json_output, "Machine-readable output");
  cmd->add_option("--weights", options->weights, "Mixing weights used for the spectral gap")
      ->check(CLI::IsMember({"metropolis", "uniform"}))
      ->capture_default_str();
  cmd->callback([options] { print_topology(*options); });
}

}  // namespace sgdsim::app
