#pragma once
// A device profile (profiles/*.json, docs/compute.md): how fast one device does each kind of a node's work —
// model math (flop/s), vector arithmetic (bytes/s) and each compressor kind's encode and decode
// (coordinates/s). The bundled profiles/default.json is compiled in; a scenario may name another file.
#include <map>
#include <string>
#include <string_view>

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
  double host_speed = 0;        // flop/s of model math
  double memory_bandwidth = 0;  // bytes/s of vector arithmetic
  std::map<std::string, protocols::CodecSpeed> codecs;
};

// Reads a profile document; errors name `origin`.
DeviceProfile read_device_profile(const nlohmann::json& document, const std::string& origin);

// The bundled profile (profiles/default.json, compiled in by CMake).
std::string_view default_profile_text();

// A codecs table: compressor kinds to {encode, decode} in coordinates per second. Prices are keyed by the
// compressor kind today. The help, the JSON Schema (`partial`: an entry may give one of the two), the
// reader of `spec`'s "codecs" into `into`, and its echo.
const std::string& codecs_help();
nlohmann::json codecs_shape(bool partial);
void read_codecs(Spec& spec, bool partial, std::map<std::string, protocols::CodecSpeed>& into);
nlohmann::json codecs_json(const std::map<std::string, protocols::CodecSpeed>& codecs);

}  // namespace sgdsim::sim
