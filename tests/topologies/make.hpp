#pragma once
// Building a topology from a JSON text in tests, the way the scenario glue does.
#include <string>

#include "common/spec.hpp"
#include "topologies/topology.hpp"

namespace sgdsim::testing {

inline topology::Topology make(const std::string& network_json, std::uint64_t seed = 1,
                               const std::string& base_dir = "") {
  const json value = parse_json_text(network_json, "test.json");
  json resolved;
  static const keys::Object keys{"network", "", topology::network_keys()};
  Spec network(value, "test.json", "$.network", resolved, keys);
  auto result = topology::make_topology(network, seed, base_dir);
  network.finish();
  return result;
}

// The edges as "a-b a-b ..." for comparing draws.
inline std::string edge_string(const topology::Topology& t) {
  std::string s;
  for (const auto& e : t.edges) s += std::to_string(e.a) + "-" + std::to_string(e.b) + " ";
  return s;
}

}  // namespace sgdsim::testing
