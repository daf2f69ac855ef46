#pragma once
// The small network the failure tests share: a 6-node ring of 10 Mbps / 200 us links whose receives give up
// after 5 ms, synthetic logistic regression, evaluated every 10 steps; and the failures they put on it.
#include <nlohmann/json.hpp>

namespace sgdsim::testing {

inline nlohmann::json failing_ring(const nlohmann::json& algorithm) {
  nlohmann::json s = nlohmann::json::parse(R"({
    "seed": 5,
    "network": { "topology": { "kind": "ring", "nodes": 6 },
                 "link": { "bandwidth": "10Mbps", "latency": "200us" }, "receive_timeout": "5ms" },
    "compute": { "host_speed": "1Gf" },
    "data": { "dataset": "synthetic", "kind": "logistic", "samples": 300, "features": 8, "batch_size": 8 },
    "model": { "kind": "logistic", "l2": 1e-3 },
    "eval": { "every": 10 }
  })");
  s["algorithm"] = algorithm;
  return s;
}

// Link 0-1, or node 2, down from 2 ms to 20 ms (network.failures and compute.failures).
inline nlohmann::json link_down() {
  return nlohmann::json::parse(R"([{"edge": [0, 1], "down": [[0.002, 0.02]]}])");
}
inline nlohmann::json node_down() {
  return nlohmann::json::parse(R"([{"node": 2, "down": [[0.002, 0.02]]}])");
}

}  // namespace sgdsim::testing
