// The memory kind ef21 (Richtárik et al. 2021) against hand recursions: what each worker sends, the replicas'
// estimate g = mean gᵢ, data-parallel SGD with it, and its contrast with classical error feedback.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "algorithms/protocols/encoders.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"
#include "scenarios/wiring/scenario.hpp"
#include "tests/protocols/cooperative_network.hpp"
#include "tests/protocols/model_recorder.hpp"

using namespace sgdsim;
using nlohmann::json;

namespace {

struct Built {
  Built(const json& protocol, std::size_t nodes, std::size_t d, bool restores_average = true)
      : value(protocol),
        declared{"protocol", "", protocols::Encoders::keys("test")},
        spec(value, "test.json", "$.algorithm", resolved, declared),
        encoders(spec, nodes, d, 11, nullptr, prices, {}, restores_average) {
    spec.finish();
  }
  json value, resolved;
  keys::Object declared;
  Spec spec;
  protocols::PriceTable prices;
  protocols::Encoders encoders;
};

// The k largest magnitudes of v kept, the rest 0 (no ties in these tests).
std::vector<float> top(std::span<const float> v, std::size_t k) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return std::abs(v[a]) > std::abs(v[b]); });
  std::vector<float> kept(v.size(), 0.0f);
  for (std::size_t j = 0; j < k; ++j) kept[order[j]] = v[order[j]];
  return kept;
}

}  // namespace

TEST_CASE("ef21 sends the compressed change of each worker's gradient and steps with g = mean g_i") {
  const std::size_t n = 2, d = 4;
  Built built({{"compressor", {{"kind", "topk"}, {"k", 1}}}, {"memory", "ef21"}}, n, d);
  CHECK(built.encoders.restores());
  const std::vector<std::vector<float>> gradient = {{4, 3, 2, 1}, {-1, 5, 0.5f, 2}};
  std::vector<std::vector<float>> g(n, std::vector<float>(d, 0.0f));  // the hand gᵢ
  std::vector<float> own(d);
  compression::Bytes bytes;
  protocols::NodeStats stats;
  for (int round = 0; round < 6; ++round) {
    std::vector<float> mean(d, 0.0f);
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<float> difference(d);
      for (std::size_t c = 0; c < d; ++c) difference[c] = gradient[i][c] - g[i][c];
      const std::vector<float> expected = top(difference, 1);
      built.encoders.encode(i, gradient[i], bytes, own, stats);
      REQUIRE(own == expected);
      for (std::size_t c = 0; c < d; ++c) {
        g[i][c] += expected[c];
        mean[c] += expected[c] / static_cast<float>(n);
      }
    }
    // Every replica restores the same g from the mean of the messages: the mean of the hand gᵢ.
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<float> step = mean;
      built.encoders.restore(i, step);
      for (std::size_t c = 0; c < d; ++c) REQUIRE(step[c] == Approx((g[0][c] + g[1][c]) / 2).margin(1e-6));
    }
  }
  // Constant gradients: after d rounds of top-1 every gᵢ is its gradient and the replicas step with the mean.
  for (std::size_t i = 0; i < n; ++i) CHECK(g[i] == gradient[i]);
}

TEST_CASE("ef21 falls silent on constant gradients where classical error feedback never does") {
  const std::size_t d = 4;
  const std::vector<float> v = {4, 3, 2, 1};
  Built ef21({{"compressor", {{"kind", "topk"}, {"k", 1}}}, {"memory", "ef21"}}, 1, d);
  Built feedback({{"compressor", {{"kind", "topk"}, {"k", 1}}}, {"memory", "error_feedback"}}, 1, d);
  std::vector<float> own(d);
  compression::Bytes bytes;
  protocols::NodeStats stats;
  // EF21 sends 4, 3, 2, 1 at coordinates 0..3, then nothing but zeros.
  for (std::size_t round = 0; round < 8; ++round) {
    ef21.encoders.encode(0, v, bytes, own, stats);
    std::vector<float> expected(d, 0.0f);
    if (round < d) expected[round] = v[round];
    CHECK(own == expected);
  }
  // Error feedback sends the accumulated error, e ← e + v − C(e + v): never a zero message. By hand: 4 at 0,
  // 6 at 1, 8 at 0, then e + v = 4, 6, 8, 4 sends 8 at 2.
  const std::vector<std::vector<float>> expected = {{4, 0, 0, 0}, {0, 6, 0, 0}, {8, 0, 0, 0}, {0, 0, 8, 0}};
  for (const auto& message : expected) {
    feedback.encoders.encode(0, v, bytes, own, stats);
    CHECK(own == message);
  }
  for (int round = 0; round < 20; ++round) {
    feedback.encoders.encode(0, v, bytes, own, stats);
    CHECK(std::any_of(own.begin(), own.end(), [](float x) { return x != 0.0f; }));
  }
}

TEST_CASE("ef21 is refused by a protocol that does not step with its estimate") {
  CHECK_THROWS_WITH(Built({{"compressor", {{"kind", "topk"}, {"k", 1}}}, {"memory", "ef21"}}, 2, 4, false),
                    Catch::Contains("$.algorithm.memory") && Catch::Contains("only data_parallel"));
  json scenario = {{"seed", 1},
                   {"network", {{"topology", {{"kind", "ring"}, {"nodes", 4}}}}},
                   {"data", {{"dataset", "synthetic"}, {"kind", "linear"}, {"samples", 8}, {"features", 3}}},
                   {"model", {{"kind", "linear"}}},
                   {"algorithm",
                    {{"kind", "choco"},
                     {"steps", 2},
                     {"lr", 0.1},
                     {"consensus_step", 0.3},
                     {"memory", "ef21"},
                     {"compressor", {{"kind", "topk"}, {"k", 1}}}}}};
  CHECK_THROWS_AS(scenarios::Scenario(scenario, "test.json", "."), InputError);
  scenario["algorithm"] = {{"kind", "data_parallel"},
                           {"steps", 2},
                           {"lr", 0.1},
                           {"memory", "ef21"},
                           {"aggregate", "majority_vote"},
                           {"compressor", {{"kind", "sign"}}}};
  CHECK_THROWS_WITH(scenarios::Scenario(scenario, "test.json", "."), Catch::Contains("majority vote"));
}

namespace {

using Recorder = testing::ModelRecorder;

// One sample per node and batches of one: each worker's gradient is a function of the shared model alone.
json data_parallel(std::size_t nodes, const json& compressor, const std::string& memory) {
  return {{"seed", 7},
          {"network", {{"topology", {{"kind", "ring"}, {"nodes", nodes}}}}},
          {"data",
           {{"dataset", "synthetic"},
            {"kind", "linear"},
            {"samples", nodes},
            {"features", 6},
            {"noise", 0.1},
            {"partition", "iid"},
            {"batch_size", 1}}},
          {"model", {{"kind", "linear"}, {"l2", 0.01}}},
          {"algorithm",
           {{"kind", "data_parallel"},
            {"steps", 30},
            {"lr", 0.1},
            {"compressor", compressor},
            {"memory", memory}}},
          {"eval", {{"every", 1}}}};
}

struct RecordedRun {
  RecordedRun(const json& scenario, std::size_t nodes) : run(scenario, "test", ".") {
    run.environment().probe = &recorder;
    testing::CooperativeNetwork network(nodes);
    network.run(run.protocol());
  }
  scenarios::Scenario run;
  Recorder recorder;
};

}  // namespace

TEST_CASE("data-parallel with ef21 and fp32 messages is plain data-parallel SGD") {
  const std::size_t n = 4;
  RecordedRun plain(data_parallel(n, {{"kind", "none"}}, "none"), n);
  RecordedRun ef21(data_parallel(n, {{"kind", "none"}}, "ef21"), n);
  // gᵢ + (∇fᵢ − gᵢ) is ∇fᵢ up to one rounding per step.
  for (const auto& [at, x] : plain.recorder.models) {
    const std::vector<float>& y = ef21.recorder.models.at(at);
    for (std::size_t c = 0; c < x.size(); ++c) REQUIRE(y[c] == Approx(x[c]).margin(1e-6));
  }
}

TEST_CASE("data-parallel with ef21 and top-k follows the hand recursion, and not the step with mean c_i") {
  const std::size_t n = 4, k = 2;
  RecordedRun recorded(data_parallel(n, {{"kind", "topk"}, {"k", k}}, "ef21"), n);
  const scenarios::Scenario& s = recorded.run;
  const std::size_t d = s.dimension();
  std::vector<float> x = recorded.recorder.models.at({0, 0}), broken = x, gradient(d);
  std::vector<std::vector<float>> g(n, std::vector<float>(d, 0.0f)), g_broken = g;
  std::vector<float> estimate(d, 0.0f);
  double gap = 0;
  for (std::int64_t t = 0; t < 30; ++t) {
    std::vector<float> mean(d, 0.0f), mean_broken(d, 0.0f);
    for (std::size_t i = 0; i < n; ++i) {
      const std::vector<std::size_t> batch{s.shards()[i][0]};
      s.model().loss_and_gradient(x, s.problem().train, batch, gradient);
      std::vector<float> difference(d);
      for (std::size_t c = 0; c < d; ++c) difference[c] = gradient[c] - g[i][c];
      const std::vector<float> message = top(difference, k);
      // The broken variant steps with the mean of the messages, as if gᵢ were a classical memory.
      s.model().loss_and_gradient(broken, s.problem().train, batch, gradient);
      for (std::size_t c = 0; c < d; ++c) difference[c] = gradient[c] - g_broken[i][c];
      const std::vector<float> message_broken = top(difference, k);
      for (std::size_t c = 0; c < d; ++c) {
        g[i][c] += message[c];
        g_broken[i][c] += message_broken[c];
        mean[c] += message[c] / static_cast<float>(n);
        mean_broken[c] += message_broken[c] / static_cast<float>(n);
      }
    }
    for (std::size_t c = 0; c < d; ++c) {
      estimate[c] += mean[c];
      x[c] -= 0.1f * estimate[c];
      broken[c] -= 0.1f * mean_broken[c];
    }
    for (std::size_t i = 0; i < n; ++i) {
      const std::vector<float>& node = recorded.recorder.models.at({t + 1, i});
      for (std::size_t c = 0; c < d; ++c) REQUIRE(node[c] == Approx(x[c]).margin(1e-5));
      REQUIRE(node == recorded.recorder.models.at({t + 1, 0}));  // replicas stay bit-identical
    }
    // g = mean gᵢ (the replicas' estimate and the workers' own, kept apart).
    for (std::size_t c = 0; c < d; ++c) {
      double mean_g = 0;
      for (std::size_t i = 0; i < n; ++i) mean_g += g[i][c] / static_cast<double>(n);
      REQUIRE(estimate[c] == Approx(mean_g).margin(1e-5));
    }
    for (std::size_t c = 0; c < d; ++c) gap = std::max(gap, static_cast<double>(std::abs(x[c] - broken[c])));
  }
  CHECK(gap > 1e-2);
}
