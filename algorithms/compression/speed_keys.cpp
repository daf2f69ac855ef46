#include "algorithms/compression/speed_keys.hpp"

#include <map>

#include "algorithms/compression/compressor.hpp"
#include "common/spec.hpp"

namespace sgdsim::compression {
using nlohmann::json;

const std::vector<std::string>* speed_keys(const std::string& kind) {
  // Left out on purpose: `scale` (one multiplication per coordinate), nuqsgd's `ratio` (the same code path
  // with other level values), signum's `momentum` (the same vector arithmetic for any value).
  static const std::map<std::string, std::vector<std::string>, std::less<>> declared = {
      {"none", {}},
      {"fp16", {}},
      {"bf16", {}},
      {"signsgd", {}},
      {"signum", {}},
      {"sign", {"bucket"}},
      {"onebit", {"bucket"}},
      {"terngrad", {"bucket"}},
      {"natural", {"exponent_bits", "bucket"}},
      {"qsgd", {"table", "levels", "bits", "coding", "zstd_level", "elias", "bucket", "bucketing"}},
      {"qsgdinf", {"table", "levels", "bits", "coding", "zstd_level", "elias", "bucket", "bucketing"}},
      {"nuqsgd", {"table", "levels", "bits", "coding", "zstd_level", "elias", "bucket", "bucketing"}},
      {"topk", {"k", "fraction", "elias"}},
      {"randk", {"k", "fraction", "elias"}},
      {"threshold", {"threshold", "elias"}},
      {"dgc", {"fraction", "sample"}},
      {"powersgd", {"rank", "rows"}},
      {"compose", {"stages"}},
  };
  const auto found = declared.find(kind);
  return found == declared.end() ? nullptr : &found->second;
}

json priced_configuration(const json& configuration) {
  if (!configuration.is_object()) return configuration;
  const std::string kind = configuration.value("kind", "");
  const std::vector<std::string>* keys = speed_keys(kind);
  if (!keys) return configuration;
  json priced = {{"kind", kind}};
  for (const std::string& key : *keys) {
    const auto value = configuration.find(key);
    if (value == configuration.end()) continue;
    if (key == "stages" && value->is_array()) {
      json stages = json::array();
      for (const json& stage : *value) stages.push_back(priced_configuration(stage));
      priced[key] = stages;
    } else {
      priced[key] = *value;
    }
  }
  return priced;
}

json resolved_configuration(const json& configuration, const std::string& origin) {
  json resolved;
  Spec spec = Spec::of_family(configuration, origin, "$", resolved, compressors());
  make_compressor(spec);
  return resolved;
}

}  // namespace sgdsim::compression
