#pragma once
// Running `sgdsim run` as a child process on a scenario written to a temporary folder, and reading its
// outputs.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/child.hpp"

namespace sgdsim::testing {

inline std::filesystem::path temporary_folder(const std::string& label) {
  static int counter = 0;
  auto dir = std::filesystem::temp_directory_path() /
             ("sgdsim-test-" + label + "-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Trace {
  std::vector<std::string> columns;
  std::vector<std::map<std::string, std::string>> rows;
  double number(std::size_t row, const std::string& column) const {
    return std::stod(rows.at(row).at(column));
  }
};

inline Trace parse_trace(const std::string& text) {
  Trace trace;
  std::istringstream in(text);
  std::string line;
  auto split = [](const std::string& s) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream cs(s);
    while (std::getline(cs, cell, ',')) cells.push_back(cell);
    if (!s.empty() && s.back() == ',') cells.emplace_back();
    return cells;
  };
  std::getline(in, line);
  trace.columns = split(line);
  while (std::getline(in, line)) {
    auto cells = split(line);
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < trace.columns.size(); ++i)
      row[trace.columns[i]] = i < cells.size() ? cells[i] : "";
    trace.rows.push_back(row);
  }
  return trace;
}

struct Run {
  int exit_code = -1;
  std::string output;  // stdout + stderr
  std::filesystem::path directory;
  std::string trace_text;
  Trace trace;
  nlohmann::json summary;
};

// Writes `scenario` to a file and runs `sgdsim run` on it; reads the outputs when the run succeeded.
inline Run run_scenario(const nlohmann::json& scenario, const std::string& label,
                        const std::string& extra = "") {
  const auto folder = temporary_folder(label);
  {
    std::ofstream out(folder / "scenario.json");
    out << scenario.dump(2);
  }
  Run run;
  run.directory = folder / "out";
  const auto result =
      run_command(std::string(SGDSIM_BINARY) + " run -q " + (folder / "scenario.json").string() + " -o " +
                  run.directory.string() + " " + extra);
  run.exit_code = result.exit_code;
  run.output = result.output;
  if (run.exit_code == 0) {
    run.trace_text = read_text(run.directory / "trace.csv");
    run.trace = parse_trace(run.trace_text);
    run.summary = nlohmann::json::parse(read_text(run.directory / "summary.json"));
  }
  return run;
}

}  // namespace sgdsim::testing
