#include "algorithms/protocols/spellings.hpp"

#include <vector>

#include "common/error.hpp"

namespace sgdsim::protocols {

namespace {
std::vector<Spelling>& registered() {
  static std::vector<Spelling> spellings;
  return spellings;
}
}  // namespace

bool add_spelling(Spelling spelling) {
  registered().push_back(std::move(spelling));
  return true;
}

nlohmann::json spell_out(const nlohmann::json& algorithm, const std::string& origin) {
  for (const Spelling& spelling : registered())
    if (std::optional<nlohmann::json> spelled = spelling(algorithm, origin)) return *spelled;
  return algorithm;
}

std::string kind_of(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_object() && value.contains("kind") && value["kind"].is_string())
    return value["kind"].get<std::string>();
  return {};
}

void refuse(const std::string& origin, const std::string& path, const std::string& message) {
  throw InputError(origin + ": " + path + ": " + message);
}

}  // namespace sgdsim::protocols
