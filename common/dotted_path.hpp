#pragma once
// Addressing scenario values by dotted path ("algorithm.compressor.levels", "network.overrides.0.latency"),
// for `run --set` and sweep grids: one definition, on top of nlohmann::json_pointer.
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace sgdsim {

// "a.b.0" -> the JSON pointer "/a/b/0" (a segment's '~' and '/' escaped).
nlohmann::json::json_pointer dotted_pointer(const std::string& path);

// The value at `path`, or nullptr when there is none.
const nlohmann::json* find_dotted(const nlohmann::json& document, const std::string& path);

// Sets `value` at `path`, creating objects along the way. An empty path or segment, or an intermediate value
// that is not an object, is an InputError naming `origin`, the path and what is in the way.
void set_dotted(nlohmann::json& document, const std::string& path, const nlohmann::json& value,
                const std::string& origin);

// Parses "path=value": the value is JSON when it parses as JSON, else a string (so --set
// network.link.bandwidth=1Gbps works without quotes).
std::pair<std::string, nlohmann::json> parse_assignment(const std::string& text);

// The last segment: "algorithm.compressor.levels" -> "levels" (a path without dots is its own).
std::string last_segment(const std::string& path);

}  // namespace sgdsim
