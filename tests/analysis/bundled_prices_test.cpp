// The bundled profile prices every codec configuration the bundled scenarios and studies use (a run of one
// would otherwise stop with exit 2 asking for a calibration). A scenario priced by a bundled accelerator
// profile is left out: such a profile estimates the codecs it does not price (docs/compute.md).
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "algorithms/compression/speed_keys.hpp"
#include "analysis/calibration.hpp"
#include "common/spec.hpp"
#include "sim/config/device_profile.hpp"

using namespace sgdsim;
namespace fs = std::filesystem;

namespace {

// Whether the scenario of a file (a sweep's: its base's) names a bundled accelerator profile.
bool priced_by_accelerator(const fs::path& file) {
  nlohmann::json document = parse_json_file(file.string());
  if (document.contains("base") && document["base"].is_string())
    document = parse_json_file((file.parent_path() / document["base"].get<std::string>()).string());
  if (!document.contains("compute") || !document["compute"].contains("profile")) return false;
  const std::string name = document["compute"]["profile"].get<std::string>();
  if (name == "default") return false;
  for (const std::string& bundled : sim::bundled_profile_names())
    if (bundled == name) return true;
  return false;
}

}  // namespace

TEST_CASE("the bundled profile prices every codec configuration of the bundled scenarios and studies") {
  const auto profile = sim::read_device_profile(
      parse_json_text(std::string(sim::default_profile_text()), "the bundled profile"),
      "profiles/default.json");
  const fs::path scenarios = fs::path(SGDSIM_SOURCE_DIR) / "scenarios";
  std::size_t files = 0, configurations = 0;
  for (const auto& entry : fs::recursive_directory_iterator(scenarios)) {
    const fs::path& file = entry.path();
    if (file.extension() != ".json" || file.filename() == "scenario.schema.json") continue;
    if (priced_by_accelerator(file)) continue;
    ++files;
    INFO(file.string());
    for (const nlohmann::json& configuration : analysis::used_configurations(file.string())) {
      const std::string priced = compression::priced_configuration(configuration).dump();
      INFO(priced);
      ++configurations;
      const auto found = profile.configurations.find(priced);
      REQUIRE(found != profile.configurations.end());
      CHECK(found->second.speed.encode > 0);
      CHECK(found->second.speed.decode > 0);
      CHECK_FALSE(found->second.source.empty());
    }
  }
  CHECK(files >= 40);
  CHECK(configurations > files);
}
