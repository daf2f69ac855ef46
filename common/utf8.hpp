#pragma once
// UTF-8 checks for strings that reach JSON output: nlohmann::json refuses to dump invalid UTF-8 (type_error
// 316), so such strings are refused or repaired where they enter, not when a run writes its results.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace sgdsim {

// The byte offset of the first byte that is not part of a well-formed UTF-8 sequence; nullopt when valid.
std::optional<std::size_t> invalid_utf8_at(std::string_view text);
// `text` with every ill-formed byte replaced by '?'.
std::string repair_utf8(std::string_view text);

}  // namespace sgdsim
