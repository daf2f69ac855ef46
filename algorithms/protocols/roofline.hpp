#pragma once
// A minibatch gradient's time on an accelerator, layer by layer (docs/compute.md, "Accelerator profiles"):
// each layer takes max(flops / (efficiency · peak), bytes / memory bandwidth) plus a launch per kernel. The
// layers travel in a gradient price's subject as [[flops, values, weight_values, kernels], ...] so that a
// recorded run can be priced again without building its model.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/learning/model.hpp"
#include "algorithms/protocols/costs.hpp"

namespace sgdsim::protocols {

// Seconds of one minibatch gradient of `batch_size` samples through `layers`.
double roofline_seconds(const Roofline& device, const std::vector<learning::LayerCost>& layers,
                        std::size_t batch_size);

// The layers as a subject carries them, and back; layers_of returns false (leaving `layers` as it was) when
// `text` is not such a list.
nlohmann::json layers_json(const std::vector<learning::LayerCost>& layers);
bool layers_of(const nlohmann::json& text, std::vector<learning::LayerCost>& layers);

// Where a roofline price came from: the device's figures and their sources.
std::string roofline_source(const Roofline& device, std::size_t layers, bool known_layers);

}  // namespace sgdsim::protocols
