#pragma once
// Which keys of a compressor configuration change how fast it encodes and decodes (docs/compute.md). A device
// profile prices configurations, not kinds: a 4-bit fixed-width QSGD table and an Elias-coded one differ by
// several times per coordinate. The priced configuration of a codec keeps its kind and those keys only, so
// that keys which leave the speed alone (a scale factor, a momentum) do not ask for a new calibration.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sgdsim::compression {

// The keys of compressor kind `kind` that change its speed; null when the kind declares none, in which case
// every key counts (a new kind is priced exactly until it says otherwise).
const std::vector<std::string>* speed_keys(const std::string& kind);

// `configuration` (a resolved compressor object: every default filled in) reduced to its kind and its speed
// keys, `compose` stage by stage. The key of a price in a profile.
nlohmann::json priced_configuration(const nlohmann::json& configuration);

// `configuration` with every default filled in, as a run resolves it. Throws InputError naming `origin`.
nlohmann::json resolved_configuration(const nlohmann::json& configuration, const std::string& origin);

}  // namespace sgdsim::compression
