// Golden traces, in the manner of SimGrid's .tesh files: each scenario tests/golden/<name>.json is run by
// `sgdsim run` in child processes (one SimGrid engine per process), and its trace.csv and summary.json must
// equal, byte for byte, the files committed in tests/golden/<name>/. summary.json is compared without the
// fields that differ from run to run or from release to release (wall_clock_s, peak_rss_mb, version). Any
// change that moves a number therefore shows in review as a change of these files; tools/regen-golden.sh
// rewrites them (it runs this program with SGDSIM_REGEN_GOLDEN=1). See docs/testing.md.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
namespace fs = std::filesystem;

namespace {

const fs::path golden_dir = fs::path(SGDSIM_SOURCE_DIR) / "tests" / "golden";

// The scenarios, named once: one test case each (below), and the list the folder is checked against.
#define GOLDEN_SCENARIOS(X) \
  X("dpsgd-ring")           \
  X("choco-torus-qsgd")     \
  X("sparq-ring-trigger") X("data-parallel-nuqsgd") X("adpsgd-ring-qsgd") X("data-parallel-fp16-ring")
#define GOLDEN_NAME(name) name,
const std::vector<std::string> scenarios = {GOLDEN_SCENARIOS(GOLDEN_NAME)};

const std::vector<std::string> varying_summary_fields = {"wall_clock_s", "peak_rss_mb", "version"};

bool regenerating() {
  const char* value = std::getenv("SGDSIM_REGEN_GOLDEN");
  return value && std::string(value) == "1";
}

struct Outputs {
  std::string trace, summary, resolved;  // summary without the varying fields
};

Outputs run(const std::string& name) {
  const fs::path folder = temporary_folder("golden-" + name);
  const fs::path out = folder / "out";
  const CommandResult result =
      run_command(std::string(SGDSIM_BINARY) + " run -q '" + (golden_dir / (name + ".json")).string() +
                  "' -o '" + out.string() + "'");
  INFO("sgdsim run " << name << ".json: " << result.output);
  REQUIRE(result.exit_code == 0);
  nlohmann::json summary = nlohmann::json::parse(read_text(out / "summary.json"));
  for (const std::string& field : varying_summary_fields) {
    INFO("summary.json has no \"" << field << "\": update varying_summary_fields and docs/testing.md");
    REQUIRE(summary.erase(field) == 1);
  }
  Outputs outputs{read_text(out / "trace.csv"), summary.dump(2) + "\n", read_text(out / "resolved.json")};
  fs::remove_all(folder);
  return outputs;
}

// Empty when the texts are equal; otherwise the first line where they differ.
std::string first_difference(const std::string& expected, const std::string& actual) {
  if (expected == actual) return "";
  std::istringstream e(expected), a(actual);
  std::string expected_line, actual_line;
  for (std::size_t line = 1;; ++line) {
    const bool more_expected = static_cast<bool>(std::getline(e, expected_line));
    const bool more_actual = static_cast<bool>(std::getline(a, actual_line));
    if (!more_expected && !more_actual) return "the texts differ only in their final newline";
    if (more_expected != more_actual || expected_line != actual_line) {
      return "first difference at line " + std::to_string(line) +
             ":\n  expected: " + (more_expected ? expected_line : "(end of file)") +
             "\n  actual:   " + (more_actual ? actual_line : "(end of file)");
    }
  }
}

void check_same(const std::string& what, const std::string& expected, const std::string& actual,
                const std::string& advice) {
  const std::string difference = first_difference(expected, actual);
  INFO(what << ": " << difference << "\n" << advice);
  CHECK(difference.empty());
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

void check_golden(const std::string& name) {
  const Outputs first = run(name);
  const Outputs second = run(name);
  const std::string nondeterministic = "the same scenario gave different outputs in two processes";
  check_same(name + ": trace.csv of a second run", first.trace, second.trace, nondeterministic);
  check_same(name + ": summary.json of a second run", first.summary, second.summary, nondeterministic);
  check_same(name + ": resolved.json of a second run", first.resolved, second.resolved, nondeterministic);

  const fs::path expected = golden_dir / name;
  if (regenerating()) {
    REQUIRE(first.trace == second.trace);  // never commit a golden file that a rerun would not reproduce
    REQUIRE(first.summary == second.summary);
    fs::create_directories(expected);
    write_text(expected / "trace.csv", first.trace);
    write_text(expected / "summary.json", first.summary);
    WARN("wrote " << (expected / "trace.csv").string() << " and summary.json");
    return;
  }
  const std::string advice =
      "If this change of results is intended, run tools/regen-golden.sh and commit the new files with it.";
  for (const std::string file : {"trace.csv", "summary.json"}) {
    INFO(file << " is missing: run tools/regen-golden.sh");
    REQUIRE(fs::exists(expected / file));
  }
  check_same(name + "/trace.csv", read_text(expected / "trace.csv"), first.trace, advice);
  check_same(name + "/summary.json", read_text(expected / "summary.json"), first.summary, advice);
}

}  // namespace

#define GOLDEN_TEST_CASE(name)       \
  TEST_CASE("golden trace: " name) { \
    check_golden(name);              \
  }
GOLDEN_SCENARIOS(GOLDEN_TEST_CASE)

TEST_CASE("every golden scenario has a test case and expected outputs, and nothing else is there") {
  std::vector<std::string> found, expected = scenarios;
  for (const auto& entry : fs::directory_iterator(golden_dir)) {
    if (entry.path().extension() == ".json") found.push_back(entry.path().stem().string());
  }
  std::sort(found.begin(), found.end());
  std::sort(expected.begin(), expected.end());
  CHECK(found == expected);
  if (regenerating()) return;
  for (const std::string& name : scenarios) {
    INFO(name);
    CHECK(fs::exists(golden_dir / name / "trace.csv"));
    CHECK(fs::exists(golden_dir / name / "summary.json"));
  }
}

TEST_CASE("golden comparison failures name the first differing line") {
  CHECK(first_difference("a\nb\nc\n", "a\nb\nc\n") == "");
  CHECK(first_difference("a\nb\nc\n", "a\nB\nc\n") ==
        "first difference at line 2:\n  expected: b\n  actual:   B");
  CHECK(first_difference("a\nb\n", "a\n") ==
        "first difference at line 2:\n  expected: b\n  actual:   (end of file)");
  CHECK(first_difference("a\n", "a") == "the texts differ only in their final newline");
}
