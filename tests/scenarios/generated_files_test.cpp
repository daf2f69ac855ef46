// The committed scenario schema, key reference and outputs reference are the binary's own output (`sgdsim
// schema`, `sgdsim docs scenario`, `sgdsim docs outputs`); after changing a declaration,
// tools/regen-reference.sh rewrites them.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
namespace fs = std::filesystem;

namespace {
void check_generated(const std::string& command, const std::string& committed) {
  const CommandResult result = run_command(std::string(SGDSIM_BINARY) + " " + command + " 2>&1");
  REQUIRE(result.exit_code == 0);
  const std::string expected = read_text(fs::path(SGDSIM_SOURCE_DIR) / committed);
  INFO(committed << " differs from `sgdsim " << command << "`: run tools/regen-reference.sh");
  if (result.output != expected) {
    // Name the first differing line so that the failure says what moved.
    std::size_t line = 1, i = 0;
    while (i < result.output.size() && i < expected.size() && result.output[i] == expected[i]) {
      if (expected[i] == '\n') ++line;
      ++i;
    }
    FAIL(committed << ": first difference at line " << line);
  }
}
}  // namespace

TEST_CASE("scenarios/scenario.schema.json is what `sgdsim schema` prints") {
  check_generated("schema", "scenarios/scenario.schema.json");
}

TEST_CASE("docs/scenario.md is what `sgdsim docs scenario` prints") {
  check_generated("docs scenario", "docs/scenario.md");
}

TEST_CASE("docs/outputs.md is what `sgdsim docs outputs` prints") {
  check_generated("docs outputs", "docs/outputs.md");
}

TEST_CASE("every family and kind has its own page") {
  const CommandResult list = run_command(std::string(SGDSIM_BINARY) + " docs 2>&1");
  REQUIRE(list.exit_code == 0);
  for (const char* family : {"compressor", "protocol", "model", "topology", "data", "lr", "trigger",
                             "partition", "memory", "collective"})
    CHECK(list.output.find(std::string("  ") + family + ":") != std::string::npos);
  const CommandResult qsgd = run_command(std::string(SGDSIM_BINARY) + " docs compressor qsgd 2>&1");
  REQUIRE(qsgd.exit_code == 0);
  CHECK(qsgd.output.find("`levels`") != std::string::npos);
  CHECK(qsgd.output.find("`ratio`") == std::string::npos);  // nuqsgd's key, not qsgd's
  const CommandResult unknown = run_command(std::string(SGDSIM_BINARY) + " docs compressor qsdg 2>&1");
  CHECK(unknown.exit_code == 2);
  CHECK(unknown.output.find("\"qsgd\"") != std::string::npos);
}
