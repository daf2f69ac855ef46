// The TorchScript example of docs/learning.md runs: its scenario, with a module of the same interface written
// by libtorch's C++ API (the suite cannot run Python's torch), validates and trains.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
namespace fs = std::filesystem;

TEST_CASE("the TorchScript example scenario of docs/learning.md validates and runs") {
  if (std::string(SGDSIM_WRITE_TORCHSCRIPT).empty()) {
    SUCCEED("built without libtorch");
    return;
  }
  const std::string doc = read_text(fs::path(SGDSIM_SOURCE_DIR) / "docs" / "learning.md");
  const auto marker = doc.find("<!-- torchscript example scenario");
  REQUIRE(marker != std::string::npos);
  const auto open = doc.find("```json\n", marker);
  const auto close = doc.find("```", open + 8);
  REQUIRE(open != std::string::npos);
  REQUIRE(close != std::string::npos);
  nlohmann::json scenario = nlohmann::json::parse(doc.substr(open + 8, close - open - 8));
  CHECK(scenario["model"]["kind"] == "torchscript");

  const fs::path folder = temporary_folder("torchscript-example");
  const auto written =
      run_command(std::string(SGDSIM_WRITE_TORCHSCRIPT) + " " + (folder / "net.pt").string());
  REQUIRE(written.exit_code == 0);
  // The same scenario, shortened to a few steps; net.pt sits beside it as in the example.
  scenario["algorithm"]["steps"] = 4;
  scenario["eval"]["every"] = 2;
  {
    std::ofstream out(folder / "ring4-torchscript.json");
    out << scenario.dump(2);
  }
  const auto validated = run_command(std::string(SGDSIM_BINARY) + " validate " +
                                     (folder / "ring4-torchscript.json").string() + " 2>&1 >/dev/null");
  INFO(validated.output);
  REQUIRE(validated.exit_code == 0);
  CHECK_THAT(validated.output, Catch::Contains("is valid") && Catch::Contains("parameters"));
  const auto ran =
      run_command(std::string(SGDSIM_BINARY) + " run -q " + (folder / "ring4-torchscript.json").string() +
                  " -o " + (folder / "out").string());
  INFO(ran.output);
  CHECK(ran.exit_code == 0);
  CHECK(fs::exists(folder / "out" / "trace.csv"));
  fs::remove_all(folder);
}
