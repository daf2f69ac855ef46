#pragma once
// Addressing scenario values by dotted path ("algorithm.compressor.levels"), for `run --set` and sweep grids.
#include <string>

#include <nlohmann/json.hpp>

namespace sgdsim::scenarios {

// Sets `value` at `path`, creating objects along the way. An intermediate value that is not an object is an
// InputError naming `origin` and the path.
void set_path(nlohmann::json& document, const std::string& path, const nlohmann::json& value,
              const std::string& origin);

// Parses "path=value": the value is JSON when it parses as JSON, else a string (so --set
// network.link.bandwidth=1Gbps works without quotes).
std::pair<std::string, nlohmann::json> parse_assignment(const std::string& text);

}  // namespace sgdsim::scenarios
