// `sgdsim run --threads N`: the gradients of the nodes at the same simulated instant are computed by N
// threads (LocalStep, common/worker_pool.hpp), and nothing a run writes may depend on N — not the trace, not
// the summary (wall-clock figures aside), not where and how a diverging run stops. Each run is its own
// process.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using nlohmann::json;

namespace {

// Small runs on a slice of Fashion-MNIST; `algorithm` and `model` vary.
json scenario(const json& model, const json& algorithm, const json& data_extra = json::object()) {
  json data = {{"dataset", "fashion-mnist"}, {"samples", 600}, {"test_samples", 100}, {"batch_size", 16}};
  data.update(data_extra);
  return {{"seed", 5},
          {"network", {{"topology", {{"kind", "ring"}, {"nodes", 6}}}, {"link", {{"bandwidth", "100Mbps"}}}}},
          {"data", data},
          {"model", model},
          {"algorithm", algorithm},
          {"eval", {{"every", 5}}}};
}

const json mlp = {{"kind", "mlp"}, {"hidden", {24}}};
const json softmax = {{"kind", "softmax"}};

std::string without_wall_clock(json summary) {
  summary.erase("wall_clock_s");
  summary.erase("peak_rss_mb");
  return summary.dump(2);
}

}  // namespace

TEST_CASE("traces and summaries are byte-identical for --threads 1, 2 and 3") {
  const std::vector<std::pair<std::string, json>> cases = {
      {"dpsgd-mlp", scenario(mlp, {{"kind", "dpsgd"}, {"steps", 20}, {"lr", 0.05}})},
      {"choco-softmax-augmented", scenario(softmax,
                                           {{"kind", "choco"},
                                            {"steps", 20},
                                            {"lr", 0.05},
                                            {"consensus_step", 0.2},
                                            {"compressor", {{"kind", "qsgd"}, {"levels", 4}}}},
                                           {{"augment", {{"crop_padding", 2}, {"horizontal_flip", true}}}})},
      {"sparq-mlp", scenario(mlp, {{"kind", "sparq"},
                                   {"steps", 20},
                                   {"lr", 0.05},
                                   {"consensus_step", 0.2},
                                   {"local_steps", 2},
                                   {"compressor", {{"kind", "topk"}, {"fraction", 0.1}}}})},
      {"data-parallel-mlp", scenario(mlp, {{"kind", "data_parallel"},
                                           {"steps", 20},
                                           {"lr", 0.05},
                                           {"compressor", {{"kind", "qsgd"}, {"levels", 4}}}})},
      // A server actor per node changes models while gradients are computed.
      {"adpsgd-mlp", scenario(mlp, {{"kind", "adpsgd"}, {"steps", 20}, {"lr", 0.05}})},
  };
  for (const auto& [name, document] : cases) {
    INFO(name);
    const Run one = run_scenario(document, "threads-" + name, "--threads 1");
    INFO(one.output);
    REQUIRE(one.exit_code == 0);
    REQUIRE(one.trace.rows.size() == 5);  // steps 0, 5, 10, 15, 20
    for (const char* threads : {"2", "3"}) {
      const Run many = run_scenario(document, "threads-" + name, std::string("--threads ") + threads);
      INFO("--threads " << threads << ": " << many.output);
      REQUIRE(many.exit_code == 0);
      CHECK(many.trace_text == one.trace_text);
      CHECK(without_wall_clock(many.summary) == without_wall_clock(one.summary));
    }
  }
}

TEST_CASE("a run that diverges stops at the same place with the same message for every --threads") {
  const json document = scenario(mlp, {{"kind", "dpsgd"}, {"steps", 50}, {"lr", 1e30}});
  const Run one = run_scenario(document, "threads-diverge", "--threads 1");
  INFO(one.output);
  REQUIRE(one.exit_code == 3);
  REQUIRE(one.output.find("sgdsim: diverged: the run diverged at step ") != std::string::npos);
  const std::string one_summary = without_wall_clock(json::parse(read_text(one.directory / "summary.json")));
  for (const char* threads : {"2", "3"}) {
    const Run many = run_scenario(document, "threads-diverge", std::string("--threads ") + threads);
    INFO("--threads " << threads << ": " << many.output);
    CHECK(many.exit_code == 3);
    CHECK(many.output == one.output);
    CHECK(read_text(many.directory / "trace.csv") == read_text(one.directory / "trace.csv"));
    CHECK(without_wall_clock(json::parse(read_text(many.directory / "summary.json"))) == one_summary);
  }
}

TEST_CASE("a thread count below 1 or not a whole number exits 2 naming --threads") {
  const json document = scenario(softmax, {{"kind", "dpsgd"}, {"steps", 2}, {"lr", 0.05}});
  for (const char* bad : {"0", "-1", "two", "1.5"}) {
    const Run run = run_scenario(document, "threads-bad", std::string("--threads ") + bad);
    INFO("--threads " << bad << ": " << run.output);
    CHECK(run.exit_code == 2);
    CHECK(run.output.find("--threads") != std::string::npos);
    CHECK(!std::filesystem::exists(run.directory));
  }
}
