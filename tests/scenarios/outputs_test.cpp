// Every output is declared (observation/outputs.hpp, scenarios/wiring/run_summary.hpp): the golden scenarios,
// made to have failures, variance draws, a trigger or a divergence, write exactly the trace columns and
// summary.json fields that `sgdsim docs outputs --json` declares for such a run, and each of them is
// documented.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const json& declarations() {
  static const json declared = [] {
    const CommandResult result = run_command(std::string(SGDSIM_BINARY) + " docs outputs --json 2>&1");
    REQUIRE(result.exit_code == 0);
    return json::parse(result.output);
  }();
  return declared;
}

// The run's conditions, as `when` names them.
bool applies(const json& declaration, const std::set<std::string>& shape) {
  const std::string when = declaration.at("when");
  return when == "always" || shape.count(when) > 0;
}

void require_documented(const json& declaration) {
  INFO(declaration.dump());
  CHECK_FALSE(declaration.at("meaning").get<std::string>().empty());
}

// Every key of `value` (recursively; an array's objects under "path[]") into `paths`.
void collect(const json& value, const std::string& path, std::set<std::string>& paths) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      const std::string key = path.empty() ? it.key() : path + "." + it.key();
      paths.insert(key);
      collect(it.value(), key, paths);
    }
  } else if (value.is_array()) {
    for (const json& item : value) collect(item, path + "[]", paths);
  }
}

// Runs a golden scenario with `settings` (`--set` arguments) and checks its outputs against the declarations
// for a run with the conditions in `shape`.
void check_outputs(const std::string& golden, const std::string& settings,
                   const std::set<std::string>& shape) {
  const fs::path folder = temporary_folder("outputs-" + golden);
  const fs::path out = folder / "out";
  const CommandResult result =
      run_command(std::string(SGDSIM_BINARY) + " run -q '" +
                  (fs::path(SGDSIM_SOURCE_DIR) / "tests" / "golden" / (golden + ".json")).string() +
                  "' -o '" + out.string() + "' " + settings + " 2>&1");
  INFO(golden << " " << settings << ": " << result.output);
  REQUIRE(result.exit_code == (shape.count("diverged") ? 3 : 0));

  // trace.csv: the declared columns for this run, in order, each documented.
  const Trace trace = parse_trace(read_text(out / "trace.csv"));
  std::vector<std::string> expected;
  for (const json& column : declarations().at("trace.csv")) {
    if (!applies(column, shape)) continue;
    expected.push_back(column.at("name"));
    require_documented(column);
  }
  CHECK(trace.columns == expected);

  // summary.json: every key is declared and documented, and every field declared for this run is there.
  std::set<std::string> declared, wanted;
  for (const json& field : declarations().at("summary.json")) {
    declared.insert(field.at("path").get<std::string>());
    require_documented(field);
    if (applies(field, shape)) wanted.insert(field.at("path").get<std::string>());
  }
  std::set<std::string> written;
  collect(json::parse(read_text(out / "summary.json")), "", written);
  for (const std::string& path : written) {
    INFO("summary.json has " << path);
    CHECK(declared.count(path) == 1);
  }
  for (const std::string& path : wanted) {
    INFO("summary.json lacks " << path);
    CHECK(written.count(path) == 1);
  }
  fs::remove_all(folder);
}

}  // namespace

TEST_CASE("a run with an event trigger writes the declared outputs") {
  check_outputs("sparq-ring-trigger", "", {});
}

TEST_CASE("a run that can fail writes the declared outputs, failure columns included") {
  check_outputs("adpsgd-ring-qsgd",
                "--set network.receive_timeout=5ms "
                "--set 'network.failures=[{\"edge\": [0, 1], \"down\": [[0.002, 0.004]]}]'",
                {"failures"});
}

TEST_CASE("a run with variance draws writes the declared outputs, variance columns included") {
  check_outputs("data-parallel-nuqsgd", "--set eval.variance_draws=2 --set algorithm.memory=none",
                {"variance_draws"});
}

TEST_CASE("a run that diverged writes the declared outputs, divergence included") {
  check_outputs("dpsgd-ring", "--set algorithm.lr=1e30", {"diverged"});
}

TEST_CASE("trace columns have distinct names and short names, and say when they apply") {
  std::set<std::string> names;
  const std::set<std::string> conditions = [] {
    std::set<std::string> known;
    for (auto it = declarations().at("when").begin(); it != declarations().at("when").end(); ++it)
      known.insert(it.key());
    return known;
  }();
  for (const json& column : declarations().at("trace.csv")) {
    INFO(column.dump());
    CHECK(names.insert(column.at("name").get<std::string>()).second);
    if (!column.at("alias").get<std::string>().empty())
      CHECK(names.insert(column.at("alias").get<std::string>()).second);
    CHECK(conditions.count(column.at("when").get<std::string>()) == 1);
  }
  std::set<std::string> paths;
  for (const json& field : declarations().at("summary.json")) {
    INFO(field.dump());
    CHECK(paths.insert(field.at("path").get<std::string>()).second);
    CHECK(conditions.count(field.at("when").get<std::string>()) == 1);
  }
}
