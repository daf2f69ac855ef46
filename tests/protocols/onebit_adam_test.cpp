// 1-bit Adam against hand recursions, with one sample per node so that every gradient is a function of the
// (shared) model alone: the warm-up equals data-parallel Adam, the compressed stage follows the recursion of
// the paper's Algorithm 1 with a frozen variance and both error buffers, and the bytes of a step.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "scenarios/wiring/scenario.hpp"
#include "tests/protocols/cooperative_network.hpp"
#include "tests/protocols/model_recorder.hpp"

using namespace sgdsim;
using nlohmann::json;

namespace {

constexpr std::size_t nodes = 4;
constexpr float eta = 0.01f;

json scenario(const json& algorithm, int features = 9) {
  return {{"seed", 3},
          {"network", {{"topology", {{"kind", "ring"}, {"nodes", nodes}}}}},
          {"data",
           {{"dataset", "synthetic"},
            {"kind", "linear"},
            {"samples", nodes},
            {"features", features},
            {"noise", 0.5},
            {"partition", "label_sorted"},
            {"batch_size", 1}}},
          {"model", {{"kind", "linear"}, {"l2", 0.01}}},
          {"algorithm", algorithm},
          {"eval", {{"every", 1}}}};
}

struct RecordedRun {
  explicit RecordedRun(const json& algorithm, int features = 9)
      : run(scenario(algorithm, features), "test", "."), network(nodes) {
    run.environment().probe = &recorder;
    network.run(run.protocol());
  }
  scenarios::Scenario run;
  testing::ModelRecorder recorder;
  testing::CooperativeNetwork network;
};

json onebit(int warmup, int steps) {
  return {{"kind", "onebit_adam"}, {"steps", steps}, {"lr", eta}, {"warmup_steps", warmup}, {"beta2", 0.99}};
}

// The variants of the hand recursion: the paper's, and two broken ones.
struct Variant {
  bool freeze = true;           // false: v keeps following the mean gradient after the warm-up
  bool server_feedback = true;  // false: the servers drop their error
};

float rms(const float* v, std::size_t k) {
  if (k == 0) return 0.0f;
  double sum = 0;
  for (std::size_t c = 0; c < k; ++c) sum += static_cast<double>(v[c]) * v[c];
  return static_cast<float>(std::sqrt(sum / static_cast<double>(k)));
}

// 1-bit Adam by hand: x after every step (the same on every node).
std::map<std::int64_t, std::vector<float>> by_hand(const scenarios::Scenario& s, int warmup, int steps,
                                                   const std::vector<float>& initial, Variant variant = {}) {
  const std::size_t d = s.dimension(), n = nodes;
  const float b1 = 0.9f, b2 = 0.99f, eps = 1e-8f;
  std::vector<float> x = initial, m(d, 0.0f), v(d, 0.0f), server_error(d, 0.0f), mean(d);
  std::vector<std::vector<float>> g(n, std::vector<float>(d)), e = g, decoded = g;
  std::map<std::int64_t, std::vector<float>> models;
  for (int t = 0; t < steps; ++t) {
    for (std::size_t i = 0; i < n; ++i)
      s.model().loss_and_gradient(x, s.problem().train, std::vector<std::size_t>{s.shards()[i][0]}, g[i]);
    for (std::size_t c = 0; c < d; ++c) {
      mean[c] = 0;
      for (std::size_t i = 0; i < n; ++i) mean[c] += g[i][c];
      mean[c] /= static_cast<float>(n);
    }
    if (t < warmup || !variant.freeze)
      for (std::size_t c = 0; c < d; ++c) v[c] = b2 * v[c] + (1 - b2) * mean[c] * mean[c];
    if (t < warmup) {
      for (std::size_t c = 0; c < d; ++c) m[c] = b1 * m[c] + (1 - b1) * mean[c];
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<float> compensated(d);
        for (std::size_t c = 0; c < d; ++c) compensated[c] = b1 * m[c] + (1 - b1) * g[i][c] + e[i][c];
        const float scale = rms(compensated.data(), d);
        for (std::size_t c = 0; c < d; ++c) {
          decoded[i][c] = compensated[c] < 0 ? -scale : scale;
          e[i][c] = compensated[c] - decoded[i][c];
        }
      }
      for (std::size_t j = 0, begin = 0; j < n; ++j) {
        const std::size_t k = d / n + (j < d % n ? 1 : 0);
        std::vector<float> z(k, 0.0f);
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t c = 0; c < k; ++c) z[c] += decoded[i][begin + c];
        for (std::size_t c = 0; c < k; ++c)
          z[c] =
              z[c] * (1.0f / static_cast<float>(n)) + (variant.server_feedback ? server_error[begin + c] : 0);
        const float scale = rms(z.data(), k);
        for (std::size_t c = 0; c < k; ++c) {
          m[begin + c] = z[c] < 0 ? -scale : scale;
          server_error[begin + c] = z[c] - m[begin + c];
        }
        begin += k;
      }
    }
    for (std::size_t c = 0; c < d; ++c) x[c] -= eta * m[c] / (std::sqrt(v[c]) + eps);
    models[t + 1] = x;
  }
  return models;
}

double distance(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (std::size_t c = 0; c < a.size(); ++c)
    worst = std::max(worst, static_cast<double>(std::abs(a[c] - b[c])));
  return worst;
}

}  // namespace

TEST_CASE("1-bit adam's warm-up is data-parallel adam without bias correction, bit for bit") {
  RecordedRun onebit_run(onebit(12, 12));
  RecordedRun adam({{"kind", "data_parallel"},
                    {"steps", 12},
                    {"lr", eta},
                    {"collective", {{"kind", "ring_allreduce"}}},
                    {"overlap", false},
                    {"optimizer", {{"kind", "adamw"}, {"beta2", 0.99}, {"bias_correction", false}}}});
  REQUIRE(adam.recorder.models.size() == 13 * nodes);
  for (const auto& [at, x] : adam.recorder.models) CHECK(onebit_run.recorder.models.at(at) == x);
  // Bias correction is a different optimizer (its first step is the same sign step, the next ones differ).
  RecordedRun corrected({{"kind", "data_parallel"},
                         {"steps", 12},
                         {"lr", eta},
                         {"collective", {{"kind", "ring_allreduce"}}},
                         {"overlap", false},
                         {"optimizer", {{"kind", "adamw"}, {"beta2", 0.99}}}});
  double gap = 0;
  for (const auto& [at, x] : corrected.recorder.models)
    gap = std::max(gap, distance(x, onebit_run.recorder.models.at(at)));
  CHECK(gap > 1e-3);
}

TEST_CASE(
    "after the warm-up 1-bit adam follows the hand recursion: frozen variance, worker and server errors") {
  RecordedRun recorded(onebit(5, 25));
  const std::vector<float>& initial = recorded.recorder.models.at({0, 0});
  const auto paper = by_hand(recorded.run, 5, 25, initial);
  const auto thawed = by_hand(recorded.run, 5, 25, initial, {false, true});
  const auto no_server_error = by_hand(recorded.run, 5, 25, initial, {true, false});
  double thawed_gap = 0, server_gap = 0;
  for (const auto& [t, x] : paper) {
    // Every replica steps with the same m: the models stay equal bit for bit.
    for (std::size_t i = 1; i < nodes; ++i)
      CHECK(recorded.recorder.models.at({t, i}) == recorded.recorder.models.at({t, 0}));
    CHECK(distance(recorded.recorder.models.at({t, 0}), x) < 1e-5);
    thawed_gap = std::max(thawed_gap, distance(recorded.recorder.models.at({t, 0}), thawed.at(t)));
    server_gap = std::max(server_gap, distance(recorded.recorder.models.at({t, 0}), no_server_error.at(t)));
  }
  CHECK(thawed_gap > 1e-3);
  CHECK(server_gap > 1e-3);
}

TEST_CASE("a 1-bit adam step after the warm-up sends 2(n − 1) messages of a scale and one bit a coordinate") {
  RecordedRun warmup(onebit(2, 2));
  RecordedRun longer(onebit(2, 9));
  const std::size_t d = longer.run.dimension();
  auto bytes = [&](std::size_t j) { return 4 + (d / nodes + (j < d % nodes ? 1 : 0) + 7) / 8; };
  CHECK(d >= nodes);
  for (std::size_t i = 0; i < nodes; ++i) {
    // To each other worker its chunk of ĉᵢ; from its own chunk's server, ẑᵢ to each other worker.
    std::size_t per_step = 0;
    for (std::size_t j = 0; j < nodes; ++j)
      if (j != i) per_step += bytes(j) + bytes(i);
    CHECK(longer.network.counters(i).messages - warmup.network.counters(i).messages == 7 * 2 * (nodes - 1));
    CHECK(longer.network.counters(i).payload_bytes - warmup.network.counters(i).payload_bytes ==
          7 * per_step);
  }
}

TEST_CASE("1-bit adam with fewer coordinates than workers: empty chunks travel as empty messages") {
  RecordedRun recorded(onebit(2, 8), 2);
  const std::size_t d = recorded.run.dimension();
  REQUIRE(d < nodes);
  const std::vector<float>& initial = recorded.recorder.models.at({0, 0});
  const auto paper = by_hand(recorded.run, 2, 8, initial);
  for (const auto& [t, x] : paper) {
    for (std::size_t i = 1; i < nodes; ++i)
      CHECK(recorded.recorder.models.at({t, i}) == recorded.recorder.models.at({t, 0}));
    CHECK(distance(recorded.recorder.models.at({t, 0}), x) < 1e-5);
  }
  // Node i's messages after the warm-up: its chunk j to each other worker j and its own chunk back to them,
  // 4 + ⌈k/8⌉ bytes for a chunk of k > 0 coordinates, nothing for an empty one.
  RecordedRun warmup(onebit(2, 2), 2);
  auto bytes = [&](std::size_t j) {
    const std::size_t k = d / nodes + (j < d % nodes ? 1 : 0);
    return k == 0 ? 0 : 4 + (k + 7) / 8;
  };
  for (std::size_t i = 0; i < nodes; ++i) {
    std::size_t per_step = 0;
    for (std::size_t j = 0; j < nodes; ++j)
      if (j != i) per_step += bytes(j) + bytes(i);
    CHECK(recorded.network.counters(i).payload_bytes - warmup.network.counters(i).payload_bytes ==
          6 * per_step);
  }
}
