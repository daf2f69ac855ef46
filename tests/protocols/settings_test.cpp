// Settings that would silently do the wrong thing: refused with exit 2, naming the keys involved.
#include <catch2/catch.hpp>

#include "tests/protocols/logistic_ring.hpp"
#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using nlohmann::json;

TEST_CASE("DGC's memory (momentum correction) beside optimizer momentum is refused, naming both keys") {
  for (const char* kind : {"data_parallel", "choco", "sparq"}) {
    INFO(kind);
    json s = logistic_ring(4, 5);
    s["algorithm"] = {{"kind", kind},
                      {"steps", 5},
                      {"lr", 0.1},
                      {"compressor", {{"kind", "topk"}, {"fraction", 0.1}}},
                      {"memory", {{"kind", "dgc"}}},
                      {"optimizer", {{"momentum", 0.9}}}};
    if (std::string(kind) != "data_parallel") s["algorithm"]["consensus_step"] = 0.1;
    if (std::string(kind) == "sparq") s["algorithm"]["trigger"] = {{"schedule", "constant"}, {"c0", 0.0}};
    const Run refused = run_scenario(s, "dgc-momentum");
    INFO(refused.output);
    CHECK(refused.exit_code == 2);
    CHECK(refused.output.find("$.algorithm.memory") != std::string::npos);
    CHECK(refused.output.find("$.algorithm.optimizer.momentum") != std::string::npos);
    // Either alone is fine.
    s["algorithm"]["optimizer"]["momentum"] = 0;
    CHECK(run_scenario(s, "dgc-alone").exit_code == 0);
  }
}

TEST_CASE("PowerSGD without error feedback runs but warns, on stderr and in summary.json") {
  json s = logistic_ring(4, 5);
  s["algorithm"] = {{"kind", "data_parallel"},
                    {"steps", 5},
                    {"lr", 0.1},
                    {"compressor", {{"kind", "powersgd"}, {"rank", 1}}}};
  const Run bare = run_scenario(s, "powersgd-bare");
  INFO(bare.output);
  REQUIRE(bare.exit_code == 0);
  CHECK(bare.output.find("warning") != std::string::npos);
  CHECK(bare.output.find("error_feedback") != std::string::npos);
  REQUIRE(bare.summary["warnings"].size() == 1);
  CHECK(bare.summary["warnings"][0].get<std::string>().find("$.algorithm.memory") != std::string::npos);
  s["algorithm"]["memory"] = {{"kind", "error_feedback"}};
  const Run fed = run_scenario(s, "powersgd-fed");
  REQUIRE(fed.exit_code == 0);
  CHECK(fed.output.find("warning") == std::string::npos);
  CHECK(fed.summary["warnings"].empty());
}
