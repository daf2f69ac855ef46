// Every file in tests/scenarios/malformed/ is a bad scenario whose first line names, after "// expect:", the
// JSON path (or position) the error message must contain. Each must give exit code 2, name the file and that
// place, and leave no output behind.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
namespace fs = std::filesystem;

TEST_CASE("malformed scenarios give exit 2, a message naming the place, and no output") {
  const fs::path corpus = fs::path(SGDSIM_SOURCE_DIR) / "tests/scenarios/malformed";
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(corpus)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 25);
  for (const fs::path& file : files) {
    const std::string text = read_text(file);
    const std::string marker = "// expect: ";
    REQUIRE(text.rfind(marker, 0) == 0);
    const std::string expected = text.substr(marker.size(), text.find('\n') - marker.size());
    const fs::path out = temporary_folder("malformed") / "out";
    for (const std::string& command :
         {"run -q " + file.string() + " -o " + out.string(), "validate " + file.string()}) {
      const CommandResult result = run_command(std::string(SGDSIM_BINARY) + " " + command);
      INFO(file.filename().string() << ": " << command << "\n" << result.output);
      CHECK(result.exit_code == 2);
      CHECK(result.output.find(file.filename().string()) != std::string::npos);
      CHECK(result.output.find(expected) != std::string::npos);
      CHECK(result.output.find("sgdsim: error:") != std::string::npos);
    }
    // Nothing written: neither the output folder nor a temporary sibling.
    std::size_t left = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(out.parent_path())) ++left;
    CHECK(left == 0);
  }
}
