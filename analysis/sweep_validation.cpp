#include "analysis/sweep_validation.hpp"

#include <map>

#include "algorithms/learning/file_bytes.hpp"
#include "common/error.hpp"
#include "scenarios/wiring/scenario.hpp"

namespace sgdsim::analysis {

std::vector<InvalidPoint> validate_points(const Sweep& sweep, const std::vector<const SweepPoint*>& points) {
  // The settings of a sweep mostly share their data files: decompress each once (nearly all of a check).
  learning::FileBytesCache data_files;
  std::vector<InvalidPoint> settings;        // every setting in enumeration order; message empty when valid
  std::map<std::string, std::size_t> index;  // overrides (without the seed) -> position in `settings`
  for (const SweepPoint* point : points) {
    const auto [it, fresh] = index.try_emplace(point->overrides.dump(), settings.size());
    if (!fresh) {
      settings[it->second].seeds.push_back(point->seed);
      continue;
    }
    InvalidPoint setting{point->label.empty() ? point->id : point->label, {point->seed}, {}};
    // Relative paths are made relative to the sweep file's folder, which exists (points/ may not yet).
    const json scenario = point_scenario(sweep, *point, sweep.sweep_dir);
    try {
      scenarios::Scenario validated(scenario, sweep.file + ", point " + setting.label,
                                    sweep.sweep_dir.empty() ? "." : sweep.sweep_dir);
    } catch (const InputError& e) {
      setting.message = e.what();
      if (setting.message.empty()) setting.message = "invalid scenario";
    }
    settings.push_back(std::move(setting));
  }
  std::vector<InvalidPoint> invalid;
  for (auto& setting : settings)
    if (!setting.message.empty()) invalid.push_back(std::move(setting));
  return invalid;
}

std::string invalid_points_message(const std::vector<InvalidPoint>& invalid, std::size_t settings_checked) {
  std::string text = std::to_string(invalid.size()) + " of " + std::to_string(settings_checked) +
                     " settings are invalid; nothing was run (fix the sweep or its base scenario):";
  for (const InvalidPoint& bad : invalid) {
    std::string seeds;
    for (const auto seed : bad.seeds) seeds += (seeds.empty() ? "" : ", ") + std::to_string(seed);
    text += "\n  " + bad.message + " (seed" + (bad.seeds.size() > 1 ? "s " : " ") + seeds + ")";
  }
  return text;
}

}  // namespace sgdsim::analysis
