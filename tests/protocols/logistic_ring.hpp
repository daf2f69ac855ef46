#pragma once
// The small learning problem several protocol tests share: synthetic logistic regression on a ring.
#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace sgdsim::testing {

// n nodes on a ring of 100 Mbps / 500 us links, 800 samples of 20 features, batch 8, D-PSGD at rate 0.2 for
// `steps` steps, evaluated every 20 steps.
inline nlohmann::json logistic_ring(std::size_t nodes, std::int64_t steps) {
  using nlohmann::json;
  return {{"seed", 3},
          {"network",
           {{"topology", {{"kind", "ring"}, {"nodes", nodes}}},
            {"link", {{"bandwidth", "100Mbps"}, {"latency", "500us"}}}}},
          {"data",
           {{"dataset", "synthetic"},
            {"kind", "logistic"},
            {"samples", 800},
            {"features", 20},
            {"batch_size", 8}}},
          {"model", {{"kind", "logistic"}, {"l2", 0.01}}},
          {"eval", {{"every", 20}}},
          {"algorithm", {{"kind", "dpsgd"}, {"steps", steps}, {"lr", 0.2}}}};
}

}  // namespace sgdsim::testing
