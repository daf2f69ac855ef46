#include "analysis/sweep_point.hpp"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "common/dotted_path.hpp"
#include "common/error.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"
#include "scenarios/wiring/scenario.hpp"
#include "sim/config/device_profile.hpp"

namespace sgdsim::analysis {
namespace fs = std::filesystem;
namespace {

// FNV-1a, 64 bits: small, fixed by definition, identical on every platform.
std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string slug(const std::string& text, std::size_t limit) {
  std::string out;
  for (unsigned char c : text) {
    if (out.size() >= limit) break;
    if (std::isalnum(c) || c == '.') {
      out += static_cast<char>(std::tolower(c));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && (out.back() == '-' || out.back() == '.')) out.pop_back();
  while (!out.empty() && out.front() == '.') out.erase(out.begin());
  return out;
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (const auto& part : parts) {
    if (part.empty()) continue;
    if (!out.empty()) out += separator;
    out += part;
  }
  return out;
}

// "algorithm.kind=choco, lr=0.1" for an unlabelled explicit point.
std::string describe_set(const json& set) {
  std::vector<std::string> parts;
  for (auto it = set.begin(); it != set.end(); ++it)
    parts.push_back(last_segment(it.key()) + "=" + value_text(*it));
  return join(parts, ", ");
}

}  // namespace

std::string value_text(const json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::vector<std::string> parameter_columns(const Sweep& sweep) {
  std::vector<std::string> columns;
  if (!sweep.points.empty()) columns.push_back("point");
  for (const auto& axis : sweep.grid) columns.push_back(axis.path);
  return columns;
}

std::string point_id(const std::string& label, const json& overrides, std::int64_t seed) {
  // nlohmann::json keeps object keys sorted, so dump() is canonical for equal overrides.
  const json canonical = {{"seed", seed}, {"set", overrides}};
  const std::string hash = fmt::format("{:012x}", fnv1a(canonical.dump()) & 0xffffffffffffULL);
  std::string readable = slug(label, 40);
  return (readable.empty() ? std::string("point") : readable) + "-s" + std::to_string(seed) + "-" + hash;
}

std::vector<SweepPoint> expand(const Sweep& sweep) {
  std::vector<ExplicitPoint> explicit_points = sweep.points;
  if (explicit_points.empty()) explicit_points.push_back({"", json::object()});

  // Every point costs a run folder and an index row; past max_sweep_points a sweep is a mistake, and
  // expanding it would only exhaust memory.
  std::size_t combinations = 1;
  for (const auto& axis : sweep.grid) {
    combinations *= std::max<std::size_t>(axis.values.size(), 1);
    if (combinations > max_sweep_points)
      throw InputError(sweep.file + ": $.grid: more than " + std::to_string(max_sweep_points) +
                       " combinations");
  }
  const std::size_t total =
      combinations * explicit_points.size() * std::max<std::size_t>(sweep.seeds.size(), 1);
  if (combinations * explicit_points.size() > max_sweep_points || total > max_sweep_points) {
    throw InputError(sweep.file + ": the sweep has " + std::to_string(explicit_points.size()) +
                     " point(s) x " + std::to_string(combinations) + " grid combination(s) x " +
                     std::to_string(sweep.seeds.size()) + " seed(s), more than the limit of " +
                     std::to_string(max_sweep_points) + " runs");
  }

  std::vector<SweepPoint> points;
  std::map<std::string, std::size_t> seen;  // canonical {seed, set} -> index, to reject coinciding points
  std::set<std::string> ids;
  for (const auto& explicit_point : explicit_points) {
    for (std::size_t combination = 0; combination < combinations; ++combination) {
      // Odometer: the last axis varies fastest.
      std::vector<std::size_t> choice(sweep.grid.size());
      std::size_t rest = combination;
      for (std::size_t a = sweep.grid.size(); a-- > 0;) {
        choice[a] = rest % sweep.grid[a].values.size();
        rest /= sweep.grid[a].values.size();
      }
      json overrides = explicit_point.set;
      std::vector<std::string> parameters, label_parts;
      if (!sweep.points.empty()) {
        const std::string point_label =
            explicit_point.label.empty() ? describe_set(explicit_point.set) : explicit_point.label;
        parameters.push_back(point_label);
        label_parts.push_back(point_label);
      }
      for (std::size_t a = 0; a < sweep.grid.size(); ++a) {
        const GridAxis& axis = sweep.grid[a];
        const json& value = axis.values[choice[a]];
        overrides[axis.path] = value;
        if (!axis.labels.empty()) {
          parameters.push_back(axis.labels[choice[a]]);
          label_parts.push_back(axis.labels[choice[a]]);
        } else {
          parameters.push_back(value_text(value));
          label_parts.push_back(last_segment(axis.path) + "=" + value_text(value));
        }
      }
      for (std::int64_t seed : sweep.seeds) {
        SweepPoint point;
        point.index = points.size();
        point.label = join(label_parts, ", ");
        point.overrides = overrides;
        point.seed = seed;
        point.parameters = parameters;
        point.id = point_id(point.label, overrides, seed);
        const std::string key = json{{"seed", seed}, {"set", overrides}}.dump();
        if (auto [it, fresh] = seen.emplace(key, point.index); !fresh) {
          throw InputError(sweep.file + ": points " + std::to_string(it->second + 1) + " and " +
                           std::to_string(point.index + 1) + " of the sweep are the same run (" +
                           point.label + ", seed " + std::to_string(seed) + "); remove the duplicate");
        }
        if (!ids.insert(point.id).second) {
          throw std::runtime_error("two different sweep points hash to the id " + point.id);
        }
        points.push_back(std::move(point));
      }
    }
  }
  return points;
}

json point_scenario(const Sweep& sweep, const SweepPoint& point, const std::string& scenario_dir) {
  json scenario = sweep.base;
  // Sorted keys put "a" before "a.b", so an object is replaced before it is refined.
  for (auto it = point.overrides.begin(); it != point.overrides.end(); ++it) {
    set_dotted(scenario, it.key(), *it, sweep.file);
  }
  // The keys declared as file paths, wherever the scenario's kinds put them (data.path,
  // network.topology.path,
  // ...): relative paths keep pointing at the same files from the points folder.
  for (const auto& key : keys::file_paths(scenarios::scenario_keys(), scenario)) {
    const json* value = find_dotted(scenario, key);
    if (!value || !value->is_string() || value->get<std::string>().empty()) continue;
    // A bundled device profile's name ("a100-amp") is not a path.
    if (key == "compute.profile" && !sim::bundled_profile_text(value->get<std::string>()).empty()) continue;
    const fs::path path = value->get<std::string>();
    if (path.is_absolute()) continue;
    const json* original = find_dotted(sweep.base, key);
    const std::string& origin_dir = original && *original == *value ? sweep.base_dir : sweep.sweep_dir;
    const fs::path target =
        fs::absolute(fs::path(origin_dir.empty() ? "." : origin_dir) / path).lexically_normal();
    const fs::path from = fs::absolute(scenario_dir.empty() ? "." : scenario_dir).lexically_normal();
    set_dotted(scenario, key, target.lexically_relative(from).string(), sweep.file);
  }
  scenario["seed"] = point.seed;
  scenario["name"] = sweep.name + "/" + point.id;
  return scenario;
}

}  // namespace sgdsim::analysis
