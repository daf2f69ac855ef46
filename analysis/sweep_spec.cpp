#include "analysis/sweep_spec.hpp"

#include <cctype>
#include <filesystem>
#include <limits>
#include <set>

#include "common/error.hpp"
#include "common/regular_file.hpp"
#include "common/spec.hpp"

namespace sgdsim::analysis {
namespace {

// Grid keys contain dots, so the error location quotes them: file: $.grid["a.b"].
std::string grid_where(const std::string& file, const std::string& key) {
  return file + ": $.grid[" + json(key).dump() + "]";
}

void check_path(const std::string& where, const std::string& path) {
  if (!valid_dotted_path(path)) {
    throw InputError(where + ": expected a dotted scenario path such as \"network.link.bandwidth\", found " +
                     json(path).dump());
  }
  if (path == "seed") throw InputError(where + ": the seed is not a grid parameter; list seeds in \"seeds\"");
}

GridAxis read_axis(const std::string& file, const std::string& path, const json& value) {
  const std::string where = grid_where(file, path);
  check_path(where, path);
  GridAxis axis;
  axis.path = path;
  const json* values = &value;
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it.key() != "values" && it.key() != "labels") {
        throw InputError(where + "." + it.key() + ": unknown key \"" + it.key() +
                         "\"; a labelled axis has only \"values\" and \"labels\"");
      }
    }
    if (!value.contains("values")) {
      throw InputError(where + ": expected an array of values, or {\"values\": [...], \"labels\": [...]}");
    }
    values = &value["values"];
    if (value.contains("labels")) {
      const json& labels = value["labels"];
      if (!labels.is_array())
        throw InputError(where + ".labels: expected an array of strings, found " + describe(labels));
      for (std::size_t i = 0; i < labels.size(); ++i) {
        if (!labels[i].is_string() || labels[i].get<std::string>().empty()) {
          throw InputError(where + ".labels[" + std::to_string(i) + "]: expected a non-empty string, found " +
                           describe(labels[i]));
        }
        axis.labels.push_back(labels[i].get<std::string>());
      }
    }
  }
  if (!values->is_array() || values->empty()) {
    throw InputError(where + (values == &value ? "" : ".values") +
                     ": expected a non-empty array of values, found " + describe(*values));
  }
  axis.values.assign(values->begin(), values->end());
  if (!axis.labels.empty() && axis.labels.size() != axis.values.size()) {
    throw InputError(where + ".labels: " + std::to_string(axis.labels.size()) + " labels for " +
                     std::to_string(axis.values.size()) + " values");
  }
  std::set<std::string> seen_values, seen_labels;
  for (std::size_t i = 0; i < axis.values.size(); ++i) {
    if (axis.values[i].is_null()) {
      throw InputError(where + "[" + std::to_string(i) + "]: null is not a scenario value");
    }
    if (!seen_values.insert(axis.values[i].dump()).second) {
      throw InputError(where + "[" + std::to_string(i) + "]: the value " + axis.values[i].dump() +
                       " appears twice");
    }
    if (!axis.labels.empty() && !seen_labels.insert(axis.labels[i]).second) {
      throw InputError(where + ".labels[" + std::to_string(i) + "]: the label \"" + axis.labels[i] +
                       "\" appears twice");
    }
  }
  return axis;
}

}  // namespace

bool valid_dotted_path(const std::string& path) {
  if (path.empty() || path.front() == '.' || path.back() == '.') return false;
  char previous = '.';
  for (char c : path) {
    const bool word = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    if (c == '.' && previous == '.') return false;
    if (c != '.' && !word) return false;
    previous = c;
  }
  return true;
}

const keys::Object& sweep_keys() {
  static const keys::Object point{
      "point",
      "One explicit run of the sweep.",
      {keys::string("label", "Its name in the index and in plot legends.").fallback_to(""),
       keys::any("set", "A non-empty object mapping dotted scenario paths to values.")}};
  static const keys::Object sweep{
      "sweep",
      "A grid (and/or list) of scenario variants and seeds, each run as its own process.",
      {keys::string("name", "The sweep's name.")
           .computed_default("the sweep file's name without its extension"),
       keys::any("base", "The scenario every run starts from: a path to a JSON file, or an inline object."),
       keys::any("grid", "An object mapping dotted scenario paths to arrays of values (every combination).")
           .may_be_absent(),
       keys::objects("points", point, "Explicit runs, each on top of every grid combination."),
       keys::integers("seeds", "Seeds; each combination runs once per seed.")
           .computed_default("the base scenario's seed")
           .at_least(0)}};
  return sweep;
}

Sweep parse_sweep(const json& document, const std::string& file) {
  json resolved;
  Spec spec(document, file, "$", resolved, sweep_keys());
  Sweep sweep;
  sweep.file = file;
  const std::string stem = std::filesystem::path(file).stem().string();
  sweep.name = spec.string("name", stem.empty() ? std::string("sweep") : stem);

  const json* base = spec.peek("base");
  spec.echo("base", base ? *base : json());
  if (!base) spec.expected("base", "a scenario (a path to a JSON file, or an inline object)");
  sweep.sweep_dir = std::filesystem::path(file).parent_path().string();
  sweep.base_dir = sweep.sweep_dir;
  if (base->is_string()) {
    std::filesystem::path path = base->get<std::string>();
    if (path.is_relative()) path = std::filesystem::path(file).parent_path() / path;
    sweep.base_dir = path.parent_path().string();
    try {
      sweep.base = parse_json_file(path.string());
    } catch (const InputError& e) {
      spec.fail("base", e.what());
    }
    if (!sweep.base.is_object())
      spec.fail("base", path.string() + ": expected a scenario object, found " + describe(sweep.base));
  } else if (base->is_object()) {
    sweep.base = *base;
  } else {
    spec.expected("base", "a scenario (a path to a JSON file, or an inline object)");
  }

  if (const json* grid = spec.peek("grid")) {
    spec.echo("grid", *grid);
    if (!grid->is_object()) spec.expected("grid", "an object mapping dotted paths to arrays of values");
    for (auto it = grid->begin(); it != grid->end(); ++it)
      sweep.grid.push_back(read_axis(file, it.key(), *it));
  }

  std::set<std::string> grid_paths;
  for (const auto& axis : sweep.grid) grid_paths.insert(axis.path);
  if (spec.has("points")) {
    if (!spec.peek("points")->is_array()) spec.expected("points", "an array of {\"label\", \"set\"} objects");
    std::set<std::string> labels;
    for (auto& item : spec.objects("points")) {
      ExplicitPoint point;
      point.label = item.string("label");
      const json* set = item.peek("set");
      if (!set || !set->is_object())
        item.expected("set", "a non-empty object mapping dotted paths to values");
      // A point that changes nothing would run the base scenario under a point's name; say how to get that.
      if (set->empty()) {
        item.fail("set",
                  "is empty: a point must set at least one dotted path (to run the base scenario as a "
                  "point, set one of its values to the value it already has)");
      }
      item.echo("set", *set);
      for (auto it = set->begin(); it != set->end(); ++it) {
        const std::string where = item.where("set") + "[" + json(it.key()).dump() + "]";
        check_path(where, it.key());
        if (it->is_null()) throw InputError(where + ": null is not a scenario value");
        if (grid_paths.count(it.key())) {
          throw InputError(where + ": this path is also a grid axis; set it in one place only");
        }
      }
      point.set = *set;
      if (!point.label.empty() && !labels.insert(point.label).second) {
        item.fail("label", "the label \"" + point.label + "\" is used by another point");
      }
      item.finish();
      sweep.points.push_back(std::move(point));
    }
    if (sweep.points.empty()) spec.expected("points", "a non-empty array (or no \"points\" key)");
  }

  if (spec.has("seeds")) {
    sweep.seeds = spec.integers("seeds");
    std::set<std::int64_t> seen;
    for (std::size_t i = 0; i < sweep.seeds.size(); ++i) {
      if (!seen.insert(sweep.seeds[i]).second) {
        spec.fail("seeds[" + std::to_string(i) + "]",
                  "the seed " + std::to_string(sweep.seeds[i]) + " appears twice");
      }
    }
  } else {
    // Without a list, the base scenario's own seed (or 1, the scenario default) is the only one.
    const json* seed = sweep.base.contains("seed") ? &sweep.base["seed"] : nullptr;
    if (seed && !seed->is_number_integer()) {
      spec.fail("base", "the base scenario's seed is " + describe(*seed) + "; give \"seeds\" in the sweep");
    }
    sweep.seeds = {seed ? seed->get<std::int64_t>() : 1};
    spec.echo("seeds", sweep.seeds);
  }
  spec.finish();
  return sweep;
}

Sweep load_sweep(const std::string& file) {
  return parse_sweep(parse_json_file(file), file);
}

}  // namespace sgdsim::analysis
