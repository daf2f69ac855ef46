#include "sim/config/network_keys.hpp"

#include <filesystem>

#include "common/spec.hpp"
#include "sim/config/calibration_file.hpp"
#include "sim/config/dynamics_keys.hpp"
#include "sim/framing.hpp"

namespace sgdsim::sim {

namespace fs = std::filesystem;

namespace {

// A file's path, or its contents (sim/config/calibration_file.hpp): closed objects, as the reader is.
nlohmann::json calibration_shape() {
  const nlohmann::json positive = {{"type", "number"}, {"exclusiveMinimum", 0}};
  const nlohmann::json segment = {{"type", "object"},
                                  {"additionalProperties", false},
                                  {"required", {"from_bytes", "latency_factor", "bandwidth_factor"}},
                                  {"properties",
                                   {{"from_bytes", {{"type", "number"}, {"minimum", 0}}},
                                    {"latency_factor", positive},
                                    {"bandwidth_factor", positive}}}};
  const nlohmann::json contents = {
      {"type", "object"},
      {"additionalProperties", false},
      {"required", {"segments"}},
      {"properties",
       {{"source", {{"type", "string"}}},
        {"segments", {{"type", "array"}, {"minItems", 1}, {"items", segment}}}}}};
  return {{"oneOf", {{{"type", "string"}}, contents}}};
}

}  // namespace

const keys::Object& network_keys() {
  static const keys::Object object = [] {
    keys::Object o{"network", "The modeled network: graph, links, and how SimGrid models them.",
                   topology::network_keys()};
    o.keys.push_back(
        keys::choice("model", {"ideal", "tcp"},
                     "\"ideal\": latency + bytes / bandwidth per hop with fair sharing (SimGrid CM02, "
                     "no cross-traffic, no TCP window cap); \"tcp\": SimGrid's calibrated LV08.")
            .fallback_to("ideal")
            .timing_only());
    o.keys.push_back(
        keys::integer("header_bytes",
                      "Header bytes added to a message's simulated size: once per message when mtu is 0, "
                      "else once per segment (an empty message is one segment). 0: payload only, as the "
                      "papers count.")
            .fallback_to(0)
            .between(0, 1 << 30)
            .in_unit("bytes")
            .timing_only());
    o.keys.push_back(
        keys::integer("mtu",
                      "Bytes of one segment on the wire, headers included; a message of P payload bytes "
                      "takes max(1, ceil(P / (mtu - header_bytes))) segments. 0: no segmentation. TCP/IPv4 "
                      "over Ethernet at line rate: mtu 1538 with header_bytes 78 (1460 payload bytes per "
                      "1500-byte IP packet; docs/network.md).")
            .fallback_to(0)
            .between(0, 1 << 30)
            .in_unit("bytes")
            .timing_only());
    o.keys.push_back(
        keys::any("calibration",
                  "Factors of the flow model piecewise by message size (SMPI-style calibration, through "
                  "SimGrid's factor callbacks; they replace the model's own): the path of a file written by "
                  "`sgdsim calibrate --network` (relative to the scenario's folder), or its contents inline. "
                  "resolved.json holds them inline. Fitted with header_bytes 0 and mtu 0 "
                  "(docs/validation.md, \"Calibration\").")
            .shaped(calibration_shape())
            .may_be_absent()
            .timing_only());
    for (auto& key : network_dynamics_keys()) o.keys.push_back(std::move(key));
    return o;
  }();
  return object;
}

NetworkSetup read_network(Spec& root, std::uint64_t seed, const std::string& base_dir) {
  Spec spec = root.object("network");
  NetworkSetup network;
  network.topology = spec.in_context([&] { return topology::make_topology(spec, seed, base_dir); });
  network.options.model = spec.string("model");
  network.options.header_bytes = static_cast<std::size_t>(spec.integer("header_bytes"));
  network.options.mtu = static_cast<std::size_t>(spec.integer("mtu"));
  if (auto problem = framing_problem(network.options.header_bytes, network.options.mtu))
    spec.fail("mtu", *problem);
  if (const json* given = spec.peek("calibration")) {
    std::string source;
    if (given->is_string()) {
      const std::string name = given->get<std::string>();
      const fs::path file = fs::path(name).is_absolute() ? fs::path(name) : fs::path(base_dir) / name;
      network.options.calibration = spec.in_context(
          [&] { return read_calibration(parse_json_file(file.string()), name, "", &source); });
      if (source.empty()) source = name;
    } else if (given->is_object()) {
      network.options.calibration = read_calibration(
          *given, spec.file(), (spec.path().empty() ? "$" : spec.path()) + ".calibration", &source);
    } else {
      spec.expected("calibration", "the path of a calibration file or its contents (an object)");
    }
    spec.echo("calibration", calibration_json(network.options.calibration, source));
  }
  read_network_dynamics(spec, network.topology, seed, base_dir, network.options.dynamics);
  spec.finish();
  return network;
}

}  // namespace sgdsim::sim
