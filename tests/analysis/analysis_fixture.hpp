#pragma once
// Helpers shared by the analysis tests: a scratch folder per test, file I/O, and running the sgdsim binary
// with the fake runner (tests/analysis/fake_run.sh) standing in for `sgdsim run`.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

}  // namespace sgdsim::analysis_tests
