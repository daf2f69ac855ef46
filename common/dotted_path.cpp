#include "common/dotted_path.hpp"

#include "common/error.hpp"
#include "common/spec.hpp"
#include "common/utf8.hpp"

namespace sgdsim {

nlohmann::json::json_pointer dotted_pointer(const std::string& path) {
  std::string pointer;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t dot = std::min(path.find('.', start), path.size());
    pointer += '/';
    for (char c : path.substr(start, dot - start))
      pointer += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    start = dot + 1;
  }
  return nlohmann::json::json_pointer(pointer);
}

const nlohmann::json* find_dotted(const nlohmann::json& document, const std::string& path) {
  try {
    const auto pointer = dotted_pointer(path);
    return document.contains(pointer) ? &document.at(pointer) : nullptr;
  } catch (const nlohmann::json::exception&) {
    return nullptr;  // e.g. a word where an array index belongs
  }
}

void set_dotted(nlohmann::json& document, const std::string& path, const nlohmann::json& value,
                const std::string& origin) {
  if (path.empty()) throw InputError(origin + ": empty path");
  nlohmann::json* node = &document;
  std::string walked = "$";
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (key.empty()) throw InputError(origin + ": \"" + path + "\" is not a valid dotted path");
    if (node->is_null()) *node = nlohmann::json::object();
    if (!node->is_object()) {
      throw InputError(origin + ": cannot set \"" + path + "\": " + walked + " is " + describe(*node) +
                       ", not an object");
    }
    walked += "." + key;
    if (dot == std::string::npos) {
      (*node)[key] = value;
      return;
    }
    node = &(*node)[key];
    start = dot + 1;
  }
}

std::pair<std::string, nlohmann::json> parse_assignment(const std::string& text) {
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw InputError("--set " + text + ": expected path=value, e.g. algorithm.steps=500");
  }
  if (auto at = invalid_utf8_at(text))
    throw InputError("--set: byte " + std::to_string(*at) + " of the argument is not valid UTF-8");
  const std::string path = text.substr(0, equals);
  const std::string raw = text.substr(equals + 1);
  nlohmann::json value = nlohmann::json::parse(raw, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) value = raw;
  return {path, value};
}

std::string last_segment(const std::string& path) {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

}  // namespace sgdsim
