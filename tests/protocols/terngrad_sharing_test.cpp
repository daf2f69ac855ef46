// TernGrad's scaler sharing (Wen et al. 2017) in data-parallel SGD against a hand oracle: with one sample per
// worker every gradient is known from the shared model, so every step's update must be lr/n times a sum of
// n values in {−s, 0, +s}, s the maximum over the workers of their bucket's max |g|; the exchange costs one
// float32 per bucket from each worker, in bits and in simulated time.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "scenarios/wiring/scenario.hpp"
#include "tests/protocols/cooperative_network.hpp"
#include "tests/protocols/model_recorder.hpp"
#include "tests/support/runs.hpp"

using namespace sgdsim;
using nlohmann::json;

namespace {

constexpr std::size_t features = 6, bucket = 4;
constexpr double lr = 0.1;
constexpr int steps = 8;

json scenario(std::size_t nodes, const json& collective, const json& share) {
  json algorithm = {{"kind", "data_parallel"},
                    {"steps", steps},
                    {"lr", lr},
                    {"collective", collective},
                    {"compressor", {{"kind", "terngrad"}, {"bucket", bucket}}}};
  if (!share.is_null()) algorithm["share_scales"] = share;
  return {{"seed", 5},
          {"network", {{"topology", {{"kind", "ring"}, {"nodes", nodes}}}}},
          {"data",
           {{"dataset", "synthetic"},
            {"kind", "linear"},
            {"samples", nodes},
            {"features", features},
            {"noise", 0.1},
            {"partition", "iid"},
            {"batch_size", 1}}},
          {"model", {{"kind", "linear"}}},
          {"algorithm", algorithm},
          {"eval", {{"every", 1}}}};
}

struct RecordedRun {
  RecordedRun(const json& scenario, std::size_t nodes) : run(scenario, "test", "."), network(nodes) {
    run.environment().probe = &recorder;
    network.run(run.protocol());
  }
  scenarios::Scenario run;
  testing::ModelRecorder recorder;
  testing::CooperativeNetwork network;
};

// The largest distance, over the steps and coordinates, of n (x_t − x_{t+1}) / (lr s) from an integer in
// [−n, n], s the shared scale of the coordinate's bucket at step t (the oracle); and checks every replica
// has the same model.
double distance_from_shared_levels(RecordedRun& recorded, std::size_t n) {
  const protocols::Environment& environment = recorded.run.environment();
  const learning::Model& model = *environment.model;
  const std::size_t d = model.dimension();
  double worst = 0;
  for (int t = 0; t < steps; ++t) {
    const std::vector<float>& x = recorded.recorder.models.at({t, 0});
    const std::vector<float>& next = recorded.recorder.models.at({t + 1, 0});
    for (std::size_t i = 1; i < n; ++i) REQUIRE(recorded.recorder.models.at({t + 1, i}) == next);
    std::vector<float> scale((d + bucket - 1) / bucket, 0.0f), gradient(d);
    for (std::size_t i = 0; i < n; ++i) {
      model.loss_and_gradient(x, *environment.train, recorded.run.shards()[i], gradient);
      for (std::size_t c = 0; c < d; ++c)
        scale[c / bucket] = std::max(scale[c / bucket], std::fabs(gradient[c]));
    }
    for (std::size_t c = 0; c < d; ++c) {
      const double k = static_cast<double>(n) * (x[c] - next[c]) / (lr * scale[c / bucket]);
      REQUIRE(std::fabs(k) <= static_cast<double>(n) + 1e-3);
      worst = std::max(worst, std::fabs(k - std::round(k)));
    }
  }
  return worst;
}

}  // namespace

TEST_CASE("terngrad workers that share scales step on the levels of the maximum of their scales") {
  const std::size_t n = 3;
  for (const json& collective : {json{{"kind", "allgather"}}, json{{"kind", "parameter_server"}}}) {
    INFO(collective.dump());
    RecordedRun shared(scenario(n, collective, nullptr), n);  // the default for terngrad
    CHECK(shared.run.resolved()["algorithm"]["share_scales"] == true);
    CHECK(distance_from_shared_levels(shared, n) < 1e-3);
    // Each worker on its own scale: the update is no such multiple (the oracle tells the two apart).
    RecordedRun own(scenario(n, collective, false), n);
    CHECK(distance_from_shared_levels(own, n) > 0.05);
  }
}

TEST_CASE("terngrad's scale exchange costs one float32 per bucket from each worker") {
  const std::size_t n = 3;
  RecordedRun probe(scenario(n, {{"kind", "allgather"}}, false), n);
  const std::size_t d = probe.run.environment().model->dimension();
  const std::size_t buckets = (d + bucket - 1) / bucket;
  const std::size_t message = (32 * buckets + 2 * d + 7) / 8;  // docs/compression.md
  RecordedRun shared(scenario(n, {{"kind", "allgather"}}, true), n);
  for (std::size_t i = 0; i < n; ++i) {
    CHECK(probe.network.counters(i).payload_bytes == steps * (n - 1) * message);
    CHECK(shared.network.counters(i).payload_bytes == steps * (n - 1) * (message + 4 * buckets));
  }
  // Through a server: each worker sends its scales up, the server sends the maximum to each.
  RecordedRun server(scenario(n, {{"kind", "parameter_server"}}, true), n);
  RecordedRun server_own(scenario(n, {{"kind", "parameter_server"}}, false), n);
  CHECK(server.network.counters(0).payload_bytes - server_own.network.counters(0).payload_bytes ==
        steps * (n - 1) * 4 * buckets);
  for (std::size_t i = 1; i < n; ++i)
    CHECK(server.network.counters(i).payload_bytes - server_own.network.counters(i).payload_bytes ==
          steps * 4 * buckets);
}

TEST_CASE("terngrad's scale exchange takes simulated time") {
  json base = scenario(4, {{"kind", "allgather"}}, false);
  base["network"]["link"] = {{"bandwidth", "10Mbps"}, {"latency", "1ms"}};
  const testing::Run own = testing::run_scenario(base, "terngrad-own");
  base["algorithm"]["share_scales"] = true;
  const testing::Run shared = testing::run_scenario(base, "terngrad-shared");
  REQUIRE(own.exit_code == 0);
  REQUIRE(shared.exit_code == 0);
  const std::size_t last = own.trace.rows.size() - 1;
  // One more round of latency-bound messages per step at least.
  CHECK(shared.trace.number(last, "sim_time_s") > own.trace.number(last, "sim_time_s") + steps * 1e-3);
  CHECK(shared.trace.number(last, "bits_sent") > own.trace.number(last, "bits_sent"));
}

TEST_CASE("share_scales needs a compressor with max-abs scales at fixed width") {
  json given = scenario(3, {{"kind", "allgather"}}, true);
  given["algorithm"]["compressor"] = {{"kind", "qsgd"}, {"levels", 4}};
  CHECK_THROWS_WITH(scenarios::Scenario(given, "test.json", "."),
                    Catch::Contains("$.algorithm.share_scales") && Catch::Contains("terngrad"));
  given["algorithm"]["compressor"] = {{"kind", "qsgdinf"}, {"levels", 4}, {"coding", "fixed"}};
  CHECK_NOTHROW(scenarios::Scenario(given, "test.json", "."));
  given["algorithm"]["compressor"] = {{"kind", "qsgd"}, {"levels", 4}};
  given["algorithm"].erase("share_scales");
  CHECK(scenarios::Scenario(given, "test.json", ".").resolved()["algorithm"]["share_scales"] == false);
}
