// The topology kind edges: a graph read from an edge-list file.
#include <filesystem>

#include "common/spec.hpp"
#include "topologies/edge_list.hpp"
#include "topologies/graph.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::topology {
namespace {

Topology from_file(Spec& spec, std::uint64_t, const std::string& base_dir) {
  std::filesystem::path path = spec.string("path");
  if (path.is_relative() && !base_dir.empty()) path = std::filesystem::path(base_dir) / path;
  std::optional<std::size_t> declared;
  if (spec.has("nodes")) declared = static_cast<std::size_t>(spec.integer("nodes"));
  EdgeFile file = read_edge_list(path.string(), declared ? *declared - 1 : max_nodes - 1);
  Topology topology = build_topology("edges", declared.value_or(file.nodes), file.edges, {});
  if (auto problem = describe_components(topology); !problem.empty())
    spec.fail("path", path.string() + ": the edge list is not connected: " + problem);
  return topology;
}

const bool registered_edge_list_kind = topologies().add(
    {"edges",
     "A graph from an edge-list file: one \"a b\" pair of 0-based node ids per line (# comments allowed).",
     {keys::path("path", "The edge-list file (relative to the scenario's folder)."),
      keys::integer("nodes",
                    "Number of nodes (default: the largest id + 1); isolated nodes make the graph "
                    "disconnected.")
          .may_be_absent()
          .between(1, static_cast<double>(max_nodes))},
     {}},
    from_file);

}  // namespace
}  // namespace sgdsim::topology
