#include "scenarios/network.hpp"

#include "common/spec.hpp"

namespace sgdsim::scenarios {

const keys::Object& network_keys() {
  static const keys::Object object = [] {
    keys::Object o{"network", "The modeled network: graph, links, and how SimGrid models them.",
                   topology::network_keys()};
    o.keys.push_back(
        keys::choice("model", {"ideal", "tcp"},
                     "\"ideal\": latency + bytes / bandwidth per hop with fair sharing (SimGrid CM02, "
                     "no cross-traffic, no TCP window cap); \"tcp\": SimGrid's calibrated LV08.")
            .fallback_to("ideal"));
    o.keys.push_back(keys::integer("header_bytes", "Bytes added to every message's simulated size.")
                         .fallback_to(0)
                         .between(0, 1 << 30)
                         .in_unit("bytes"));
    return o;
  }();
  return object;
}

Network read_network(Spec& root, std::uint64_t seed, const std::string& base_dir) {
  Spec spec = root.object("network");
  Network network;
  network.topology = spec.in_context([&] { return topology::make_topology(spec, seed, base_dir); });
  network.options.model = spec.string("model");
  network.options.header_bytes = static_cast<std::size_t>(spec.integer("header_bytes"));
  spec.finish();
  return network;
}

}  // namespace sgdsim::scenarios
