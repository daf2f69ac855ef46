#include "analysis/plot_runs.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "analysis/sweep_point.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"

namespace sgdsim::analysis {
namespace fs = std::filesystem;
namespace {

void flatten_into(const json& value, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (value.is_object() && !value.empty()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      flatten_into(*it, prefix.empty() ? it.key() : prefix + "." + it.key(), out);
    }
  } else {
    out[prefix] = value_text(value);
  }
}

json read_json_or_null(const fs::path& file) {
  std::string text;
  if (!read_file(file, text)) return nullptr;
  try {
    return json::parse(text, nullptr, true, true);
  } catch (const json::exception&) {
    throw InputError(file.string() + ": not valid JSON");
  }
}

RunData load_run(const fs::path& dir) {
  RunData run;
  run.dir = dir.string();
  run.name = dir.filename().string();
  run.trace = read_csv((dir / "trace.csv").string());
  run.resolved = read_json_or_null(dir / "resolved.json");
  if (run.resolved.is_object() && run.resolved.contains("seed") && run.resolved["seed"].is_number_integer()) {
    run.seed = run.resolved["seed"].get<std::int64_t>();
  }
  return run;
}

// The temporary folder of a run still writing DIR ("DIR.tmp-HOST-PID", scenarios/wiring/output_folder.hpp)
// whose trace.csv changed last, if any.
std::optional<fs::path> in_progress_folder(const fs::path& dir) {
  std::error_code error;
  const fs::path parent = dir.parent_path().empty() ? fs::path(".") : dir.parent_path();
  const std::string prefix = dir.filename().string() + ".tmp-";
  std::optional<fs::path> newest;
  fs::file_time_type newest_time{};
  for (const auto& entry : fs::directory_iterator(parent, error)) {
    const std::string name = entry.path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const fs::path trace = entry.path() / "trace.csv";
    const auto time = fs::last_write_time(trace, error);
    if (error) continue;
    if (!newest || time > newest_time) {
      newest = entry.path();
      newest_time = time;
    }
  }
  return newest;
}

// A run still being written: its trace so far, without a last line whose newline is not there yet.
RunData load_run_in_progress(const fs::path& temporary, const fs::path& dir) {
  RunData run;
  run.dir = dir.string();
  run.name = dir.filename().string();
  std::string text;
  if (!read_file(temporary / "trace.csv", text))
    throw InputError(temporary.string() + "/trace.csv: cannot read");
  const auto newline = text.rfind('\n');
  if (newline == std::string::npos)
    throw InputError(dir.string() + ": the run in progress has no trace row yet");
  text.resize(newline + 1);
  run.trace = parse_csv(text, (temporary / "trace.csv").string());
  run.resolved = read_json_or_null(temporary / "resolved.json");
  if (run.resolved.is_object() && run.resolved.contains("seed") && run.resolved["seed"].is_number_integer()) {
    run.seed = run.resolved["seed"].get<std::int64_t>();
  }
  return run;
}

// A lone run: every resolved scenario value is a candidate parameter (only the ones that vary are used).
RunData load_lone_run(const fs::path& dir) {
  RunData run = load_run(dir);
  if (run.resolved.is_object()) {
    run.parameters = flatten(run.resolved);
    run.parameters.erase("seed");
    run.parameters.erase("name");
    if (run.resolved.contains("name") && run.resolved["name"].is_string()) {
      run.name = run.resolved["name"].get<std::string>();
    }
  }
  return run;
}

std::vector<RunData> load_sweep_runs(const fs::path& dir) {
  std::vector<RunData> runs;
  const fs::path index = dir / "index.csv";
  if (!fs::exists(index)) {
    std::vector<fs::path> folders;
    for (const auto& entry : fs::directory_iterator(dir / "runs")) {
      if (entry.is_directory() && fs::exists(entry.path() / "summary.json")) folders.push_back(entry.path());
    }
    std::sort(folders.begin(), folders.end());
    for (const auto& folder : folders) runs.push_back(load_lone_run(folder));
    return runs;
  }
  const CsvTable table = read_csv(index.string());
  const auto id = table.column("id"), label = table.column("label"), seed = table.column("seed"),
             status = table.column("status");
  if (!id || !label || !seed || !status || *seed < *label) {
    throw InputError(index.string() +
                     ": not a sweep index (expected the columns id, label, ..., seed, status)");
  }
  for (const auto& row : table.rows) {
    // A diverged run's trace stops at the divergence: its curve just ends there.
    if (row[*status] != "ok" && row[*status] != "diverged") continue;
    RunData run = load_run(dir / "runs" / row[*id]);
    run.name = row[*label].empty() ? row[*id] : row[*label];
    for (std::size_t c = *label + 1; c < *seed; ++c) {
      run.parameters[table.header[c]] = row[c];
      run.axes.push_back(table.header[c]);
    }
    if (auto s = csv_number(row[*seed])) run.seed = static_cast<std::int64_t>(*s);
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace

std::optional<std::string> RunData::parameter(const std::string& key) const {
  if (auto it = parameters.find(key); it != parameters.end()) return it->second;
  const json* node = &resolved;
  std::size_t start = 0;
  while (node->is_object()) {
    const auto dot = key.find('.', start);
    auto it = node->find(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (it == node->end()) return std::nullopt;
    if (dot == std::string::npos) return value_text(*it);
    node = &*it;
    start = dot + 1;
  }
  return std::nullopt;
}

std::map<std::string, std::string> flatten(const json& document) {
  std::map<std::string, std::string> out;
  flatten_into(document, "", out);
  return out;
}

std::vector<RunData> collect_runs(const std::vector<std::string>& dirs) {
  std::vector<RunData> runs;
  for (const auto& text : dirs) {
    const fs::path dir = text;
    std::error_code error;
    std::vector<RunData> found;
    if (!fs::is_directory(dir, error)) {
      // A run still going writes into a temporary sibling; its trace grows there row by row.
      const auto temporary = in_progress_folder(dir);
      if (!temporary) throw InputError(text + ": no such folder");
      RunData run = load_run_in_progress(*temporary, dir);
      if (run.trace.rows.empty()) throw InputError(text + ": the run in progress has no trace row yet");
      std::fprintf(stderr, "sgdsim: %s is still being written: using its %zu rows so far (%s)\n",
                   text.c_str(), run.trace.rows.size(), temporary->string().c_str());
      if (run.resolved.is_object()) {
        run.parameters = flatten(run.resolved);
        run.parameters.erase("seed");
        run.parameters.erase("name");
        if (run.resolved.contains("name") && run.resolved["name"].is_string())
          run.name = run.resolved["name"].get<std::string>();
      }
      run.source = text;
      run.lone = true;
      runs.push_back(std::move(run));
      continue;
    }
    if (fs::exists(dir / "trace.csv")) {
      found.push_back(load_lone_run(dir));
      found.back().lone = true;
    } else if (fs::exists(dir / "index.csv") || fs::is_directory(dir / "runs")) {
      found = load_sweep_runs(dir);
      if (found.empty()) throw InputError(text + ": the sweep has no complete run yet");
    } else {
      throw InputError(text + ": neither a run folder (trace.csv) nor a sweep folder (index.csv, runs/)");
    }
    for (auto& run : found) {
      run.source = text;
      runs.push_back(std::move(run));
    }
  }
  return runs;
}

}  // namespace sgdsim::analysis
