#pragma once
// The runs a plot draws from: `sgdsim plot DIR...` takes run folders (trace.csv inside) and sweep folders
// (every run listed as ok in index.csv, or, without an index, every complete folder under runs/). Each run
// carries the parameters that can tell it apart from the others: a sweep's index columns, or for a lone run
// its resolved scenario flattened to dotted paths.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/csv_table.hpp"

namespace sgdsim::analysis {

using nlohmann::json;

struct RunData {
  std::string dir;                                // the run folder
  std::string name;                               // fallback legend: the sweep label or the folder name
  std::map<std::string, std::string> parameters;  // dotted path (or index column) -> value text
  std::optional<std::int64_t> seed;
  CsvTable trace;
  json resolved;  // the resolved scenario, or null when the folder has none
  // Where it came from: the folder given on the command line, and for a run of a sweep, the sweep's varied
  // columns (index.csv's, in order). Empty `axes` and `lone`: a run folder given by itself.
  std::string source;
  std::vector<std::string> axes;
  bool lone = false;

  // The value of a parameter: from `parameters`, else from the resolved scenario by dotted path.
  std::optional<std::string> parameter(const std::string& key) const;
};

// Throws InputError for a folder that is neither a run nor a sweep, or that holds no complete run.
std::vector<RunData> collect_runs(const std::vector<std::string>& dirs);

// {"a": {"b": 1}, "c": [1, 2]} -> {"a.b": "1", "c": "[1,2]"}; strings bare.
std::map<std::string, std::string> flatten(const json& document);

}  // namespace sgdsim::analysis
