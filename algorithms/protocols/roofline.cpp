#include "algorithms/protocols/roofline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

namespace sgdsim::protocols {

double roofline_seconds(const Roofline& device, const std::vector<learning::LayerCost>& layers,
                        std::size_t batch_size) {
  const double batch = static_cast<double>(batch_size);
  const double math_rate = device.efficiency.value * device.peak.value;
  const double bytes_per_value = device.bytes_per_value.value;
  double seconds = 0;
  for (const learning::LayerCost& layer : layers) {
    const double math = batch * layer.flops / math_rate;
    const double memory =
        (batch * layer.values + layer.weight_values) * bytes_per_value / device.memory_bandwidth.value;
    seconds += std::max(math, memory) + layer.kernels * device.launch_overhead.value;
  }
  return seconds;
}

nlohmann::json layers_json(const std::vector<learning::LayerCost>& layers) {
  nlohmann::json out = nlohmann::json::array();
  for (const learning::LayerCost& layer : layers)
    out.push_back({layer.flops, layer.values, layer.weight_values, layer.kernels});
  return out;
}

bool layers_of(const nlohmann::json& text, std::vector<learning::LayerCost>& layers) {
  if (!text.is_array() || text.empty()) return false;
  std::vector<learning::LayerCost> read;
  for (const nlohmann::json& entry : text) {
    if (!entry.is_array() || entry.size() != 4) return false;
    for (const nlohmann::json& value : entry)
      if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0) return false;
    read.push_back(
        {entry[0].get<double>(), entry[1].get<double>(), entry[2].get<double>(), entry[3].get<double>()});
  }
  layers = std::move(read);
  return true;
}

std::string roofline_source(const Roofline& device, std::size_t layers, bool known_layers) {
  char figures[256];
  std::snprintf(
      figures, sizeof figures,
      "peak %.4g flop/s × efficiency %.4g, memory %.4g B/s, %.4g bytes per value, %.4g s per kernel "
      "launch",
      device.peak.value, device.efficiency.value, device.memory_bandwidth.value, device.bytes_per_value.value,
      device.launch_overhead.value);
  return "a prediction: the roofline of " +
         (known_layers
              ? std::to_string(layers) + " layers"
              : std::string("the model as one layer of its flops (it does not describe its layers)")) +
         " on " + device.profile + " (" + figures + "; peak: " + device.peak.source +
         "; efficiency: " + device.efficiency.source + "; memory: " + device.memory_bandwidth.source +
         "; launch: " + device.launch_overhead.source + ")";
}

}  // namespace sgdsim::protocols
