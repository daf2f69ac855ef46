#include "scenarios/dotted_path.hpp"

#include "common/error.hpp"

namespace sgdsim::scenarios {

void set_path(nlohmann::json& document, const std::string& path, const nlohmann::json& value,
              const std::string& origin) {
  if (path.empty()) throw InputError(origin + ": empty path");
  nlohmann::json* node = &document;
  std::size_t start = 0;
  std::string walked = "$";
  while (true) {
    const std::size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (key.empty()) throw InputError(origin + ": \"" + path + "\" is not a valid dotted path");
    if (node->is_null()) *node = nlohmann::json::object();
    if (!node->is_object()) {
      throw InputError(origin + ": cannot set \"" + path + "\": " + walked + " is not an object");
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
  const std::string path = text.substr(0, equals);
  const std::string raw = text.substr(equals + 1);
  nlohmann::json value = nlohmann::json::parse(raw, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) value = raw;
  return {path, value};
}

}  // namespace sgdsim::scenarios
