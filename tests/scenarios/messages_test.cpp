// Messages a new user meets first: a plain number where a unit is needed, a torus with one size, `topology
// --set`, `run` outside a terminal, and what `validate` prints after the scenario.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
namespace fs = std::filesystem;

namespace {

// The scenario of the golden D-PSGD run (a 4-node ring on a small synthetic problem).
std::string golden(const std::string& name) {
  return (fs::path(SGDSIM_SOURCE_DIR) / "tests" / "golden" / (name + ".json")).string();
}

CommandResult cli(const std::string& arguments) {
  return run_command(std::string(SGDSIM_BINARY) + " " + arguments + " 2>&1 </dev/null");
}

}  // namespace

TEST_CASE("a plain number for a bandwidth, latency or speed is refused with both readings, exit 2") {
  const fs::path folder = temporary_folder("plain-number");
  struct Case {
    std::string set, message;
  };
  for (const Case& c :
       {Case{"network.link.bandwidth=10000000000",
             "$.network.link.bandwidth: is the plain number 10000000000, which does not say its "
             "unit: write \"10Gbps\" for bits/s or \"10GBps\" for bytes/s"},
        Case{"network.link.latency=0.5",
             "$.network.link.latency: is the plain number 0.5, which does not say its unit: "
             "write \"500ms\" for seconds or \"500us\" for milliseconds"},
        Case{"compute.host_speed=2e9", "write \"2Gf\" for flop/s"}}) {
    INFO(c.set);
    for (const std::string& verb : {std::string("validate"), "run -o " + (folder / "out").string()}) {
      const CommandResult result = cli(verb + " " + golden("dpsgd-ring") + " --set " + c.set);
      INFO(result.output);
      CHECK(result.exit_code == 2);
      CHECK_THAT(result.output, Catch::Contains(c.message));
      CHECK_FALSE(fs::exists(folder / "out"));
    }
  }
  // 0 needs no unit.
  CHECK(cli("validate -q " + golden("dpsgd-ring") + " --set network.link.latency=0").exit_code == 0);
  fs::remove_all(folder);
}

TEST_CASE("a torus with one size says two or three are needed") {
  const CommandResult result = cli("validate " + golden("dpsgd-ring") +
                                   " --set network.topology='{\"kind\":\"torus\",\"dims\":[32]}'");
  INFO(result.output);
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.output,
             Catch::Contains("$.network.topology.dims: expected an array of 2 or 3 integers") &&
                 Catch::Contains("found 1 integer, [32]"));
}

TEST_CASE("topology takes --set like run") {
  const CommandResult result =
      cli("topology " + golden("dpsgd-ring") + " --set network.topology.nodes=7 --json");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK(nlohmann::json::parse(result.output)["nodes"] == 7);
}

TEST_CASE("run says in one line that it finished when stderr is not a terminal") {
  const fs::path folder = temporary_folder("one-line");
  const CommandResult result = cli("run " + golden("dpsgd-ring") + " -o " + (folder / "out").string());
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK(result.output == "sgdsim: run: wrote " + (folder / "out").string() + "\n");
  CHECK(cli("run -q " + golden("dpsgd-ring") + " -o " + (folder / "q").string()).output.empty());
  fs::remove_all(folder);
}

TEST_CASE("validate ends with the rates in human units, the model's size and a step's bytes and seconds") {
  const CommandResult result = run_command(std::string(SGDSIM_BINARY) + " validate " + golden("dpsgd-ring") +
                                           " 2>&1 >/dev/null </dev/null");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.output, Catch::Contains("is valid."));
  CHECK_THAT(result.output, Catch::Contains("4 nodes, 4 links; bandwidth 10Mbps (1.25MBps); latency 200us"));
  CHECK_THAT(result.output, Catch::Contains("model math at 1Gf"));
  CHECK_THAT(result.output, Catch::Contains("logistic, 9 parameters (36B as fp32)"));
  // D-PSGD on a ring of 4: each node sends its 9 floats (36 bytes, plus 40 bytes of headers) to 2 neighbours.
  CHECK_THAT(result.output, Catch::Contains("36B payload, 76B on the wire per message"));
  CHECK_THAT(result.output, Catch::Contains("per step:  8 messages, 608B on the wire"));
  CHECK_THAT(result.output, Catch::Contains("simulated (mean node: gradient "));
}

TEST_CASE("a command whose standard output cannot be written fails, saying so") {
  // /dev/full takes no byte (ENOSPC), as a full disk; it is only opened for writing here.
  for (const std::string& command : {"validate " + golden("dpsgd-ring"), std::string("docs scenario"),
                                     std::string("schema"), "topology " + golden("dpsgd-ring") + " --json"}) {
    INFO(command);
    const CommandResult result =
        run_command(std::string(SGDSIM_BINARY) + " " + command + " 2>&1 >/dev/full </dev/null");
    CHECK(result.exit_code == 1);
    CHECK_THAT(result.output, Catch::Contains("sgdsim: failed: cannot write standard output"));
  }
  const CommandResult ok = run_command(std::string(SGDSIM_BINARY) + " schema >/dev/null");
  CHECK(ok.exit_code == 0);
}

TEST_CASE("topology refuses --until inf, nan or too many changes, --node -1 and --link 0-1-2, exit 2") {
  const fs::path folder = temporary_folder("topology-options");
  nlohmann::json scenario = nlohmann::json::parse(read_text(golden("dpsgd-ring")), nullptr, true, true);
  scenario["network"]["dynamics"] = nlohmann::json::parse(
      R"([{"edge": [0, 1], "bandwidth": {"kind": "random", "mean_normal": "1ms", "mean_episode": "1ms", "value": 0.5}}])");
  const std::string file = (folder / "s.json").string();
  std::ofstream(file) << scenario.dump();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--link 0-1 --until inf", "--until: expected a finite number of seconds >= 0, found inf"},
      {"--link 0-1 --until nan", "--until: expected a finite number of seconds >= 0, found nan"},
      {"--link 0-1 --until -1", "--until: expected a finite number of seconds >= 0, found -1"},
      {"--link 0-1 --until 1e9", "--until 1e+09: the bandwidth_Bps profile changes more than 1000000 times"},
      {"--node -1", "--node: expected a node id >= 0, found -1"},
      {"--node 99", "--node: expected a node id below 4"},
      {"--link 0-1-2", "--link: expected a-b (two node ids), found \"0-1-2\""},
      {"--link 0-", "--link: expected a-b"},
  };
  for (const auto& [options, message] : cases) {
    const CommandResult result = cli("topology " + file + " " + options);
    INFO(options << "\n" << result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains(message));
  }
  const CommandResult fine = cli("topology " + file + " --link 1-0 --until 0.01");
  INFO(fine.output);
  CHECK(fine.exit_code == 0);
  CHECK_THAT(fine.output, Catch::Contains("# bandwidth_Bps until 0.01 s"));
  fs::remove_all(folder);
}
