// DiLoCo and local SGD against hand recursions, with one sample per node so that every inner gradient is a
// function of the node's model alone: the reduction to data-parallel SGD, the outer Nesterov step, local
// SGD's averaging, and the bytes of a round.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "scenarios/wiring/scenario.hpp"
#include "tests/protocols/cooperative_network.hpp"
#include "tests/protocols/model_recorder.hpp"

using namespace sgdsim;
using nlohmann::json;

namespace {

using Recorder = testing::ModelRecorder;

constexpr std::size_t nodes = 4;

json scenario(const json& algorithm) {
  return {{"seed", 5},
          {"network", {{"topology", {{"kind", "ring"}, {"nodes", nodes}}}}},
          {"data",
           {{"dataset", "synthetic"},
            {"kind", "linear"},
            {"samples", nodes},
            {"features", 5},
            {"noise", 0.5},
            {"partition", "label_sorted"},
            {"batch_size", 1}}},
          {"model", {{"kind", "linear"}, {"l2", 0.01}}},
          {"algorithm", algorithm},
          {"eval", {{"every", 1}}}};
}

struct RecordedRun {
  explicit RecordedRun(const json& algorithm) : run(scenario(algorithm), "test", "."), network(nodes) {
    run.environment().probe = &recorder;
    network.run(run.protocol());
  }
  scenarios::Scenario run;
  Recorder recorder;
  testing::CooperativeNetwork network;
};

json diloco(int local_steps, double outer_lr, double outer_momentum, bool nesterov, int steps) {
  return {{"kind", "diloco"},           {"steps", steps},       {"lr", 0.1},
          {"local_steps", local_steps}, {"outer_lr", outer_lr}, {"outer_momentum", outer_momentum},
          {"nesterov", nesterov}};
}

// The inner AdamW of the hand computation: β = (0.9, 0.95), ε = 1e-6, λ = 0.1, bias-corrected, each
// worker's moments and step count kept across rounds (`reset`: restarted every round, a broken variant).
struct InnerAdamw {
  bool on = false, reset = false;
};

// DiLoCo by hand, in float as the protocol computes: θ after every step's round end (the models every node
// holds then), inner SGD x ← x − η∇Fᵢ(x) from θ (or the inner AdamW).
std::map<std::int64_t, std::vector<float>> by_hand(const scenarios::Scenario& s, int local_steps,
                                                   float outer_lr, float mu, bool nesterov, int steps,
                                                   const std::vector<float>& initial, InnerAdamw adamw = {}) {
  const std::size_t d = s.dimension();
  std::vector<float> theta = initial, momentum(d, 0.0f), gradient(d);
  std::vector<std::vector<float>> x(nodes, theta), m(nodes, std::vector<float>(d)), v = m;
  std::vector<int> inner(nodes, 0);
  std::map<std::int64_t, std::vector<float>> rounds;
  for (int t = 0; t < steps; ++t) {
    for (std::size_t i = 0; i < nodes; ++i) {
      const std::vector<std::size_t> batch{s.shards()[i][0]};
      s.model().loss_and_gradient(x[i], s.problem().train, batch, gradient);
      if (!adamw.on) {
        for (std::size_t c = 0; c < d; ++c) x[i][c] -= 0.1f * gradient[c];
        continue;
      }
      const int k = ++inner[i];
      const double b1 = 1 - std::pow(0.9, k), b2 = 1 - std::pow(0.95, k);
      for (std::size_t c = 0; c < d; ++c) {
        x[i][c] *= static_cast<float>(1 - 0.1 * 0.1);
        m[i][c] = 0.9f * m[i][c] + 0.1f * gradient[c];
        v[i][c] = 0.95f * v[i][c] + 0.05f * gradient[c] * gradient[c];
        x[i][c] -= static_cast<float>(0.1 / b1) * m[i][c] /
                   (std::sqrt(v[i][c]) / static_cast<float>(std::sqrt(b2)) + 1e-6f);
      }
    }
    if ((t + 1) % local_steps != 0 && t + 1 != steps) continue;
    if (adamw.reset) {
      for (std::size_t i = 0; i < nodes; ++i) {
        inner[i] = 0;
        m[i].assign(d, 0.0f);
        v[i].assign(d, 0.0f);
      }
    }
    for (std::size_t c = 0; c < d; ++c) {
      float delta = 0;
      for (std::size_t i = 0; i < nodes; ++i) delta += (theta[c] - x[i][c]) / static_cast<float>(nodes);
      float step = delta;
      if (mu > 0) {
        momentum[c] = mu * momentum[c] + delta;
        step = nesterov ? delta + mu * momentum[c] : momentum[c];
      }
      theta[c] -= outer_lr * step;
    }
    for (auto& xi : x) xi = theta;
    rounds[t + 1] = theta;
  }
  return rounds;
}

double distance(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = 0;
  for (std::size_t c = 0; c < a.size(); ++c)
    worst = std::max(worst, static_cast<double>(std::abs(a[c] - b[c])));
  return worst;
}

}  // namespace

TEST_CASE("diloco with one inner step, outer rate 1 and no momentum is data-parallel SGD") {
  RecordedRun outer(diloco(1, 1.0, 0.0, true, 30));
  RecordedRun plain({{"kind", "data_parallel"}, {"steps", 30}, {"lr", 0.1}});
  // θ − (θ − ηgᵢ) is ηgᵢ up to a rounding of θ: equal to float precision, not bit for bit.
  double worst = 0;
  for (const auto& [at, x] : plain.recorder.models)
    worst = std::max(worst, distance(outer.recorder.models.at(at), x));
  CHECK(worst < 1e-6);
}

TEST_CASE("local sgd is diloco with outer rate 1 and no momentum: every round ends at the mean model") {
  RecordedRun recorded(diloco(4, 1.0, 0.0, true, 22));
  const auto rounds = by_hand(recorded.run, 4, 1.0f, 0.0f, true, 22, recorded.recorder.models.at({0, 0}));
  CHECK(rounds.size() == 6);  // rounds end at steps 4, 8, 12, 16, 20 and the last, 22
  for (const auto& [t, theta] : rounds)
    for (std::size_t i = 0; i < nodes; ++i)
      CHECK(distance(recorded.recorder.models.at({t, i}), theta) < 1e-6);
  // Between rounds the workers drift apart on their own shards.
  CHECK(distance(recorded.recorder.models.at({3, 0}), recorded.recorder.models.at({3, 3})) > 1e-3);
}

TEST_CASE("the outer nesterov step follows the hand computation, and heavy ball does not") {
  RecordedRun recorded(diloco(3, 0.7, 0.9, true, 24));
  const std::vector<float>& initial = recorded.recorder.models.at({0, 0});
  const auto nesterov = by_hand(recorded.run, 3, 0.7f, 0.9f, true, 24, initial);
  const auto heavy = by_hand(recorded.run, 3, 0.7f, 0.9f, false, 24, initial);
  double gap = 0;
  for (const auto& [t, theta] : nesterov) {
    for (std::size_t i = 0; i < nodes; ++i)
      CHECK(distance(recorded.recorder.models.at({t, i}), theta) < 1e-5);
    gap = std::max(gap, distance(recorded.recorder.models.at({t, 0}), heavy.at(t)));
  }
  CHECK(gap > 1e-3);
}

TEST_CASE("a diloco round sends each worker's pseudo-gradient once: (n − 1) fp32 messages with allgather") {
  RecordedRun recorded(diloco(3, 0.7, 0.9, true, 10));
  const std::size_t d = recorded.run.dimension();
  // Rounds end at steps 3, 6, 9 and 10.
  for (std::size_t i = 0; i < nodes; ++i) {
    CHECK(recorded.network.counters(i).messages == 4 * (nodes - 1));
    CHECK(recorded.network.counters(i).payload_bytes == 4 * (nodes - 1) * 4 * d);
  }
}

TEST_CASE("diloco's inner adamw keeps each worker's moments across rounds, as the paper's inner optimizer") {
  json algorithm = diloco(3, 0.7, 0.9, true, 15);
  algorithm["optimizer"] = {{"kind", "adamw"}, {"beta2", 0.95}, {"epsilon", 1e-6}, {"weight_decay", 0.1}};
  RecordedRun recorded(algorithm);
  const std::vector<float>& initial = recorded.recorder.models.at({0, 0});
  const auto kept = by_hand(recorded.run, 3, 0.7f, 0.9f, true, 15, initial, {true, false});
  const auto reset = by_hand(recorded.run, 3, 0.7f, 0.9f, true, 15, initial, {true, true});
  double gap = 0;
  for (const auto& [t, theta] : kept) {
    for (std::size_t i = 0; i < nodes; ++i)
      CHECK(distance(recorded.recorder.models.at({t, i}), theta) < 1e-5);
    gap = std::max(gap, distance(recorded.recorder.models.at({t, 0}), reset.at(t)));
  }
  CHECK(gap > 1e-3);
}
