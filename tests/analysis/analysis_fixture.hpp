#pragma once
// Helpers shared by the analysis tests: a scratch folder per test, file I/O, and running the sgdsim binary
// with the fake runner (tests/analysis/fake_run.sh) standing in for `sgdsim run`.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/csv_table.hpp"
#include "analysis/plot_runs.hpp"
#include "tests/support/child.hpp"

namespace sgdsim::analysis_tests {

using sgdsim::testing::CommandResult;
using sgdsim::testing::run_command;

namespace fs = std::filesystem;

class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name)
      : path_(fs::temp_directory_path() / ("sgdsim-analysis-" + name + "-" + std::to_string(getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

inline void write_text(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

inline std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::string quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

inline std::string fake_runner() {
  return std::string(SGDSIM_SOURCE_DIR) + "/tests/analysis/fake_run.sh";
}

// Runs `sgdsim <arguments>` (arguments already quoted) with the fake runner, plus extra environment settings.
inline CommandResult run_sgdsim(const std::string& arguments, const std::string& environment = "") {
  return run_command("SGDSIM_RUNNER=" + quote(fake_runner()) + " " + environment + " " +
                     quote(SGDSIM_BINARY) + " " + arguments);
}

// Names of the entries of a folder, sorted.
inline std::vector<std::string> entries(const fs::path& folder) {
  std::vector<std::string> names;
  if (!fs::is_directory(folder)) return names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

inline std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// A run made in memory, with evaluations at steps 0, 10, ..., 40: loss scale/(1+step), accuracy step/100,
// compression error step/100, `bits_per_step` bits and `seconds_per_step` simulated seconds per step.
inline analysis::RunData fake_run(const std::string& method, const std::string& bandwidth, int seed,
                                  double scale, double bits_per_step, double seconds_per_step) {
  analysis::RunData run;
  run.dir = method + "-" + bandwidth + "-" + std::to_string(seed);
  run.name = method;
  run.parameters = {{"algorithm.kind", method}, {"network.link.bandwidth", bandwidth}};
  run.seed = seed;
  std::string csv =
      "step,sim_time_s,bits_sent,bytes_on_wire,messages,triggers,train_loss,test_accuracy,"
      "consensus_distance,compression_error\n";
  for (int step = 0; step <= 40; step += 10) {
    csv += std::to_string(step) + "," + std::to_string(seconds_per_step * step) + "," +
           std::to_string(bits_per_step * step) + ",0,0,," + std::to_string(scale / (1 + step)) + "," +
           std::to_string(step / 100.0) + ",," + std::to_string(0.01 * step) + "\n";
  }
  run.trace = analysis::parse_csv(csv, run.dir);
  return run;
}

// Runs (with the fake runner) a sweep of two methods (dpsgd, choco) x two bandwidths (10Mbps, 1000Mbps) x two
// seeds into folder/out, and returns that folder.
inline fs::path fake_method_sweep(const fs::path& folder) {
  write_text(folder / "s.json", R"({
    "base": {"network": {"topology": {"kind": "ring", "nodes": 4}}, "algorithm": {"kind": "dpsgd"}},
    "grid": {"network.link.bandwidth": ["10Mbps", "1000Mbps"], "algorithm.kind": ["dpsgd", "choco"]},
    "seeds": [1, 2]
  })");
  const auto made = run_sgdsim("sweep " + quote((folder / "s.json").string()) + " -o " +
                               quote((folder / "out").string()) + " -j 2");
  if (made.exit_code != 0) throw std::runtime_error("fake sweep failed: " + made.output);
  return folder / "out";
}

}  // namespace sgdsim::analysis_tests
