#pragma once
// A device profile (profiles/*.json, docs/compute.md): how fast one device does each kind of a node's work —
// model math (flop/s), vector arithmetic (bytes/s) and each codec configuration's encode and decode
// (coordinates/s) — or, for an accelerator, the figures of its roofline, each with its source. The bundled
// profiles are compiled in and named by their file's stem; a scenario may name another file.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/protocols/costs.hpp"
#include "common/keys.hpp"

namespace sgdsim {
class Spec;
}

namespace sgdsim::sim {

// The keys of a profile file.
const keys::Object& profile_keys();

struct DeviceProfile {
  double host_speed = 0;        // flop/s of model math (an accelerator: its roofline's efficiency × peak)
  double memory_bandwidth = 0;  // bytes/s of vector arithmetic
  // An accelerator profile's roofline (active()): model math per layer, launches for the rest.
  protocols::Roofline roofline;
  // Prices per codec configuration (compression/speed_keys.hpp), keyed by the priced configuration's JSON.
  std::map<std::string, protocols::CodecPrice> configurations;
};

// Reads a profile document; errors name `origin`.
DeviceProfile read_device_profile(const nlohmann::json& document, const std::string& origin);

// The bundled profiles (profiles/NAME.json, compiled in by CMake), by name: "default" (the CPU profile),
// "v100-fp32", "a100-amp", ... An empty text for a name that is not bundled.
std::string_view bundled_profile_text(std::string_view name);
std::vector<std::string> bundled_profile_names();
inline std::string_view default_profile_text() {
  return bundled_profile_text("default");
}

// A codecs table: a list of priced codec configurations, or compressor kinds to {encode, decode}, in
// coordinates per second. The help, the JSON Schema (`partial`: an entry may give one of the two), and the
// reader of `spec`'s "codecs": a list goes to `configurations` (each entry's source, else `source`), an
// object to `by_kind`.
const std::string& codecs_help();
nlohmann::json codecs_shape(bool partial);
void read_codecs(Spec& spec, bool partial, std::map<std::string, protocols::CodecSpeed>& by_kind,
                 std::map<std::string, protocols::CodecPrice>& configurations, const std::string& source);

}  // namespace sgdsim::sim
