// `sgdsim topology`: text and JSON output, reading only "seed" and "network", exit 2 on bad input.
#include <catch2/catch.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/child.hpp"

using sgdsim::testing::run_command;

namespace {

std::filesystem::path write_scenario(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("sgdsim-topology-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name) << text;
  return dir / name;
}

}  // namespace

TEST_CASE("topology command prints counts and the spectral gap as JSON") {
  const auto file =
      write_scenario("ring.json", R"({"seed": 4, "network": {"topology": {"kind": "ring", "nodes": 16},
    "model": "tcp"}, "algorithm": {"anything": "is ignored"}})");
  const auto result = run_command(std::string(SGDSIM_BINARY) + " topology --json " + file.string());
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  const auto out = nlohmann::json::parse(result.output);
  CHECK(out["nodes"] == 16);
  CHECK(out["edges"] == 16);
  CHECK(out["degree_min"] == 2);
  CHECK(out["degree_max"] == 2);
  CHECK(out["diameter"] == 8);
  CHECK(out["spectral_gap"].get<double>() == Approx(1 - (1 + 2 * std::cos(2 * M_PI / 16)) / 3).margin(1e-12));
  CHECK(out["model"] == "tcp");
  CHECK(out["seed"] == 4);
  const auto text = run_command(std::string(SGDSIM_BINARY) + " topology " + file.string());
  CHECK(text.exit_code == 0);
  CHECK_THAT(text.output,
             Catch::Contains("diameter:     8 hops") && Catch::Contains("spectral gap: 0.050747"));
  std::filesystem::remove_all(file.parent_path());
}

TEST_CASE("topology command rejects a bad network with exit code 2") {
  const auto file = write_scenario("bad.json", R"({"network": {"topology": {"kind": "torus", "dims": [4, 4]},
    "overrides": [{"edge": [0, 5], "latency": "1ms"}]}})");
  const auto result = run_command(std::string(SGDSIM_BINARY) + " topology " + file.string());
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.output, Catch::Contains("bad.json: $.network.overrides[0].edge") &&
                                Catch::Contains("no edge between nodes 0 and 5"));
  std::filesystem::remove_all(file.parent_path());
}
