// An issue's spelling of a method that lives elsewhere (algorithms/protocols/spellings.hpp) runs that method
// byte for byte, shows what ran in resolved.json, and refuses what the method does not support, naming the
// place. Each run is its own process.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using nlohmann::json;

namespace {

json scenario(const json& algorithm) {
  return {
      {"seed", 3},
      {"network", {{"topology", {{"kind", "ring"}, {"nodes", 4}}}, {"link", {{"bandwidth", "100Mbps"}}}}},
      {"data", {{"dataset", "fashion-mnist"}, {"samples", 600}, {"test_samples", 100}, {"batch_size", 16}}},
      {"model", {{"kind", "softmax"}}},
      {"algorithm", algorithm},
      {"eval", {{"every", 2}}}};
}

json resolved(const Run& run) {
  return json::parse(read_text(run.directory / "resolved.json"));
}

// Runs the alias and the form it stands for; both must succeed with the same trace and resolved.json.
void same_run(const json& alias, const json& form, const std::string& label) {
  const Run a = run_scenario(scenario(alias), label + "-alias", "--threads 1");
  INFO(a.output);
  REQUIRE(a.exit_code == 0);
  const Run b = run_scenario(scenario(form), label + "-form", "--threads 1");
  INFO(b.output);
  REQUIRE(b.exit_code == 0);
  CHECK(a.trace.rows.size() == 7);  // steps 0, 2, ..., 12
  CHECK(a.trace_text == b.trace_text);
  CHECK(resolved(a)["algorithm"] == resolved(b)["algorithm"]);
  CHECK(a.summary["algorithm"] == b.summary["algorithm"]);
}

void refused(const json& algorithm, const std::string& place, const std::string& words) {
  const Run run = run_scenario(scenario(algorithm), "alias-refused", "--threads 1");
  INFO(run.output);
  CHECK(run.exit_code == 2);
  CHECK(run.output.find("$.algorithm." + place + ":") != std::string::npos);
  CHECK(run.output.find(words) != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(run.directory));
}

const json dp = {{"kind", "data_parallel"}, {"steps", 12}, {"lr", 0.001}};
json with(json object, const json& more) {
  object.update(more);
  return object;
}

}  // namespace

TEST_CASE("data_parallel with optimizer onebit_adam is the protocol onebit_adam, byte for byte") {
  // Past the warm-up, so that the 1-bit stage runs too; every optimizer key and the collective carried over.
  same_run(with(dp, {{"optimizer",
                      {{"kind", "onebit_adam"},
                       {"warmup_steps", 4},
                       {"beta1", 0.8},
                       {"beta2", 0.99},
                       {"epsilon", 1e-6}}},
                     {"collective", {{"kind", "recursive_doubling"}}}}),
           {{"kind", "onebit_adam"},
            {"steps", 12},
            {"lr", 0.001},
            {"warmup_steps", 4},
            {"beta1", 0.8},
            {"beta2", 0.99},
            {"epsilon", 1e-6},
            {"collective", {{"kind", "recursive_doubling"}}}},
           "onebit-adam");
  // Defaults: the protocol's (collective ring_allreduce, 100 warm-up steps), written as neutral keys.
  same_run(
      with(dp, {{"optimizer", {{"kind", "onebit_adam"}}}, {"compressor", "none"}, {"aggregate", "mean"}}),
      {{"kind", "onebit_adam"}, {"steps", 12}, {"lr", 0.001}}, "onebit-adam-defaults");
}

TEST_CASE("optimizer onebit_adam refuses what 1-bit Adam does not support, naming the place") {
  const json onebit = {{"kind", "onebit_adam"}, {"warmup_steps", 4}};
  refused(with(dp, {{"optimizer", onebit}, {"compressor", {{"kind", "qsgd"}, {"levels", 4}}}}), "compressor",
          "compresses the momentum itself");
  refused(with(dp, {{"optimizer", onebit}, {"memory", {{"kind", "error_feedback"}}}}), "memory",
          "leave memory out");
  refused(with(dp, {{"optimizer", onebit}, {"collective", {{"kind", "thc"}}}}), "collective",
          "\"thc\" would quantize");
  refused(with(dp, {{"optimizer", onebit}, {"overlap", true}}), "overlap", "does not overlap");
  refused(with(dp, {{"optimizer", onebit}, {"aggregate", "majority_vote"}}), "aggregate", "\"mean\" only");
  refused(with(dp, {{"optimizer", onebit}, {"warmup_steps", 4}}), "warmup_steps", "unknown key");
  refused(with(dp, {{"optimizer", with(onebit, {{"momentum", 0.9}})}}), "optimizer.momentum",
          "does not apply");
  refused(with(dp, {{"optimizer", with(onebit, {{"warmup_steps", 0}})}}), "optimizer.warmup_steps",
          "expected an integer");
  // Only data_parallel has it: elsewhere (a gossip protocol, the protocol itself) it is refused.
  refused({{"kind", "dpsgd"}, {"steps", 12}, {"lr", 0.001}, {"optimizer", onebit}}, "optimizer.kind",
          "optimizer of \"data_parallel\" only");
  refused({{"kind", "onebit_adam"}, {"steps", 12}, {"lr", 0.001}, {"optimizer", {{"kind", "onebit_adam"}}}},
          "optimizer.kind", "optimizer of \"data_parallel\" only");
  // warmup_steps belongs to onebit_adam's optimizer only.
  refused(with(dp, {{"optimizer", {{"kind", "sgd"}, {"warmup_steps", 4}}}}), "optimizer.warmup_steps",
          "does not apply");
}

TEST_CASE("data_parallel with compressor thc is the collective thc, byte for byte") {
  const json thc = {
      {"kind", "thc"}, {"bits", 3}, {"overflow", 1e-3}, {"rotation_seed", 5}, {"error_feedback", true}};
  same_run(with(dp, {{"compressor", thc}, {"collective", {{"kind", "ring_allreduce"}}}}),
           with(dp, {{"collective", thc}}), "thc");
  same_run(with(dp, {{"compressor", "thc"}, {"memory", "none"}}), with(dp, {{"collective", "thc"}}),
           "thc-defaults");
}

TEST_CASE("compressor thc refuses where THC cannot work, naming the place") {
  const json thc = {{"kind", "thc"}, {"bits", 4}};
  for (const char* collective : {"allgather", "parameter_server", "recursive_doubling", "thc"})
    refused(with(dp, {{"compressor", thc}, {"collective", {{"kind", collective}}}}), "collective",
            "leave the collective out or write \"ring_allreduce\"");
  refused(with(dp, {{"compressor", thc}, {"collective", {{"kind", "ring_allreduce"}, {"ring", "ids"}}}}),
          "collective", "keys do not apply");
  refused(with(dp, {{"compressor", thc}, {"memory", {{"kind", "error_feedback"}}}}), "memory",
          "\"error_feedback\": true in the compressor");
  refused(with(dp, {{"compressor", thc}, {"aggregate", "majority_vote"}}), "aggregate", "\"mean\" only");
  // A protocol's own messages: THC needs the all-reduce's shared frame.
  refused({{"kind", "choco"}, {"steps", 12}, {"lr", 0.001}, {"consensus_step", 0.2}, {"compressor", thc}},
          "compressor.kind", "all-reduce");
  refused({{"kind", "diloco"}, {"steps", 12}, {"lr", 0.001}, {"compressor", thc}}, "compressor.kind",
          "all-reduce");
  // The collective form takes no compressor but "none", and 1-bit Adam's spelling none at all.
  refused(with(dp, {{"optimizer", {{"kind", "onebit_adam"}}}, {"compressor", thc}}), "compressor",
          "compresses the momentum itself");
}
