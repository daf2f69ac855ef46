#pragma once
// A probe that keeps every node's model at every step, for tests that check protocols against hand
// recursions step by step.
#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "algorithms/protocols/probe.hpp"

namespace sgdsim::testing {

class ModelRecorder : public protocols::Probe {
 public:
  bool wants(std::int64_t) const override { return true; }
  void observe(std::int64_t step, std::size_t node, std::span<const float> model,
               const protocols::NodeStats&) override {
    models[{step, node}].assign(model.begin(), model.end());
  }
  std::map<std::pair<std::int64_t, std::size_t>, std::vector<float>> models;  // (step, node) -> model
};

}  // namespace sgdsim::testing
