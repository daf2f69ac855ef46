// Protocol properties checked in-process (no SimGrid): average preservation, copy consistency, and
// data-parallel SGD with fp32 messages equal to minibatch SGD with n times the batch.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "common/rng.hpp"
#include "scenarios/wiring/scenario.hpp"
#include "tests/protocols/cooperative_network.hpp"
#include "tests/protocols/model_recorder.hpp"

using namespace sgdsim;
using nlohmann::json;

namespace {

// One sample per node makes every minibatch gradient a deterministic function of the node's model, so the
// test can recompute each node's gradient exactly.
json base_scenario(std::size_t nodes) {
  return {{"seed", 7},
          {"network", {{"topology", {{"kind", "ring"}, {"nodes", nodes}}}}},
          {"data",
           {{"dataset", "synthetic"},
            {"kind", "linear"},
            {"samples", nodes},
            {"features", 6},
            {"noise", 0.1},
            {"partition", "iid"},
            {"batch_size", 3}}},
          {"model", {{"kind", "linear"}, {"l2", 0.01}}},
          {"eval", {{"every", 1}}}};
}

// Records every node's model at every step.
using Recorder = testing::ModelRecorder;

// A scenario whose protocol ran on the cooperative network, with every node's model at every step recorded.
struct RecordedRun {
  RecordedRun(const json& scenario, std::size_t nodes) : run(scenario, "test", ".") {
    run.environment().probe = &recorder;
    testing::CooperativeNetwork network(nodes);
    network.run(run.protocol());
  }
  scenarios::Scenario run;
  Recorder recorder;
};

// The minibatch node i draws next from its batch stream, as LocalStep draws it.
std::vector<std::size_t> next_batch(const scenarios::Scenario& s, std::size_t i, Rng& stream, int size) {
  std::vector<std::size_t> batch;
  const auto& shard = s.shards()[i];
  for (int b = 0; b < size; ++b) batch.push_back(shard[stream.below(shard.size())]);
  return batch;
}

std::vector<double> average(const Recorder& r, std::int64_t step, std::size_t nodes, std::size_t d) {
  std::vector<double> mean(d, 0.0);
  for (std::size_t i = 0; i < nodes; ++i) {
    const auto& x = r.models.at({step, i});
    for (std::size_t c = 0; c < d; ++c) mean[c] += x[c] / static_cast<double>(nodes);
  }
  return mean;
}

// x̄_{t+1} = x̄_t − η · mean_i ∇f_i(x_i^t), for every step of the run.
void check_average_preservation(const json& algorithm) {
  const std::size_t n = 6;
  json scenario = base_scenario(n);
  scenario["algorithm"] = algorithm;
  RecordedRun recorded(scenario, n);
  const scenarios::Scenario& s = recorded.run;
  const Recorder& recorder = recorded.recorder;
  const std::size_t d = s.dimension();
  const double eta = algorithm["lr"].get<double>();
  const std::int64_t steps = algorithm["steps"].get<std::int64_t>();
  std::vector<float> gradient(d);
  double worst = 0;
  for (std::int64_t t = 0; t < steps; ++t) {
    std::vector<double> expected = average(recorder, t, n, d);
    for (std::size_t i = 0; i < n; ++i) {
      const std::vector<std::size_t> batch{s.shards()[i][0]};
      s.model().loss_and_gradient(recorder.models.at({t, i}), s.problem().train, batch, gradient);
      for (std::size_t c = 0; c < d; ++c) expected[c] -= eta * gradient[c] / static_cast<double>(n);
    }
    const std::vector<double> actual = average(recorder, t + 1, n, d);
    for (std::size_t c = 0; c < d; ++c) worst = std::max(worst, std::abs(actual[c] - expected[c]));
  }
  INFO(algorithm.dump());
  CHECK(worst < 2e-5);
}

}  // namespace

TEST_CASE("choco preserves the average for any compressor, in both orders") {
  for (const char* order : {"compress_first", "consensus_first"}) {
    for (json compressor : {json{{"kind", "qsgd"}, {"levels", 4}, {"bucket", 4}},
                            json{{"kind", "topk"}, {"k", 2}}, json{{"kind", "sign"}}}) {
      check_average_preservation({{"kind", "choco"},
                                  {"steps", 40},
                                  {"lr", 0.05},
                                  {"consensus_step", 0.3},
                                  {"order", order},
                                  {"compressor", compressor}});
    }
  }
  // A memory changes what is compressed, never that copies move by decoded messages only.
  check_average_preservation({{"kind", "choco"},
                              {"steps", 40},
                              {"lr", 0.05},
                              {"consensus_step", 0.3},
                              {"memory", "error_feedback"},
                              {"compressor", {{"kind", "topk"}, {"k", 2}}}});
}

TEST_CASE("sparq preserves the average for any trigger pattern and number of local steps") {
  for (int h : {1, 3}) {
    for (double c0 : {0.0, 5.0, 1e6}) {
      check_average_preservation({{"kind", "sparq"},
                                  {"steps", 40},
                                  {"lr", 0.05},
                                  {"consensus_step", 0.4},
                                  {"local_steps", h},
                                  {"trigger", {{"schedule", "constant"}, {"c0", c0}}},
                                  {"compressor", {{"kind", "qsgd"}, {"levels", 2}, {"bucket", 3}}}});
    }
  }
  check_average_preservation({{"kind", "sparq"},
                              {"steps", 40},
                              {"lr", 0.05},
                              {"consensus_step", 0.4},
                              {"trigger", {{"schedule", "constant"}, {"c0", 5.0}}},
                              {"memory", "error_feedback"},
                              {"compressor", {{"kind", "sign"}}}});
}

TEST_CASE("every holder of a public copy holds the same bytes-derived vector") {
  const std::size_t n = 5;
  // Dense messages, and sparse ones that sender and receivers add by their positions only.
  for (json compressor : {json{{"kind", "qsgd"}, {"levels", 4}, {"bucket", 4}},
                          json{{"kind", "topk"}, {"k", 3}}, json{{"kind", "randk"}, {"k", 3}}}) {
    INFO(compressor.dump());
    json scenario = base_scenario(n);
    scenario["network"]["topology"] = {{"kind", "complete"}, {"nodes", n}};
    scenario["algorithm"] = {{"kind", "sparq"},
                             {"steps", 30},
                             {"lr", 0.05},
                             {"consensus_step", 0.3},
                             {"local_steps", 2},
                             {"verify_copies", true},
                             {"trigger", {{"c0", 2.0}}},
                             {"compressor", compressor}};
    scenarios::Scenario s(scenario, "test", ".");
    testing::CooperativeNetwork network(n);
    // finish() compares every held copy with its owner's, and m_i with the weighted sum of the copies it
    // holds, and throws on any difference.
    CHECK_NOTHROW(network.run(s.protocol()));
  }
}

TEST_CASE("data-parallel with fp32 messages is minibatch SGD with n times the batch, with every collective") {
  const std::size_t n = 5;
  const std::string collective =
      GENERATE(as<std::string>{}, "allgather", "parameter_server", "ring_allreduce", "recursive_doubling");
  INFO(collective);
  json scenario = base_scenario(n);
  scenario["data"]["samples"] = 40;
  scenario["data"]["batch_size"] = 5;
  scenario["algorithm"] = {{"kind", "data_parallel"}, {"steps", 25}, {"lr", 0.1}, {"collective", collective}};
  RecordedRun recorded(scenario, n);
  const scenarios::Scenario& s = recorded.run;
  const Recorder& recorder = recorded.recorder;

  // Reference: one model, the union of the n nodes' minibatches (each node's stream draws as LocalStep does).
  const std::size_t d = s.dimension();
  std::vector<float> x = recorder.models.at({0, 0});
  std::vector<Rng> streams;
  for (std::size_t i = 0; i < n; ++i) streams.push_back(Rng::stream(7, i, Purpose::batch));
  std::vector<float> gradient(d);
  for (std::int64_t t = 0; t < 25; ++t) {
    std::vector<std::size_t> batch;
    for (std::size_t i = 0; i < n; ++i) {
      const std::vector<std::size_t> own = next_batch(s, i, streams[i], 5);
      batch.insert(batch.end(), own.begin(), own.end());
    }
    s.model().loss_and_gradient(x, s.problem().train, batch, gradient);
    for (std::size_t c = 0; c < d; ++c) x[c] -= 0.1f * gradient[c];
    for (std::size_t i = 0; i < n; ++i) {
      const auto& node = recorder.models.at({t + 1, i});
      for (std::size_t c = 0; c < d; ++c) REQUIRE(node[c] == Approx(x[c]).margin(1e-5));
      REQUIRE(node == recorder.models.at({t + 1, 0}));  // replicas stay bit-identical
    }
  }
}

// D-PSGD's two orders against the update computed by hand from the recorded iterates, on a 5-node ring
// (Metropolis weights 1/3): adapt-then-combine x_i' = Σ_j w_ij (x_j − η ∇f_j(x_j)); combine-then-adapt
// x_i' = Σ_j w_ij x_j − η ∇f_i(x_i). Each run must match its own formula and not the other one.
TEST_CASE("dpsgd: adapt_then_combine and combine_then_adapt follow their update rules") {
  const std::size_t n = 5;
  const double eta = 0.1;
  for (const char* order : {"adapt_then_combine", "combine_then_adapt"}) {
    INFO(order);
    json scenario = base_scenario(n);
    scenario["algorithm"] = {{"kind", "dpsgd"}, {"steps", 10}, {"lr", eta}, {"order", order}};
    RecordedRun recorded(scenario, n);
    const scenarios::Scenario& s = recorded.run;
    const std::size_t d = s.dimension();
    double own_rule = 0, other_rule = 0;
    std::vector<float> gradient(d);
    for (std::int64_t t = 0; t < 10; ++t) {
      std::vector<std::vector<double>> x(n), g(n);
      for (std::size_t j = 0; j < n; ++j) {
        const auto& model = recorded.recorder.models.at({t, j});
        x[j].assign(model.begin(), model.end());
        // Each shard has one sample, so every minibatch is that sample batch_size times.
        const std::vector<std::size_t> batch(3, s.shards()[j][0]);
        s.model().loss_and_gradient(model, s.problem().train, batch, gradient);
        g[j].assign(gradient.begin(), gradient.end());
      }
      for (std::size_t i = 0; i < n; ++i) {
        const auto& next = recorded.recorder.models.at({t + 1, i});
        for (std::size_t c = 0; c < d; ++c) {
          double atc = 0, cta = 0;
          for (std::size_t j : {(i + n - 1) % n, i, (i + 1) % n}) {
            atc += (x[j][c] - eta * g[j][c]) / 3;
            cta += x[j][c] / 3;
          }
          cta -= eta * g[i][c];
          const bool is_atc = std::string(order) == "adapt_then_combine";
          // Relative to the size of the coordinate: float arithmetic against the double computation here.
          const double scale = 1 + std::abs(atc) + std::abs(cta);
          own_rule = std::max(own_rule, std::abs(next[c] - (is_atc ? atc : cta)) / scale);
          other_rule = std::max(other_rule, std::abs(next[c] - (is_atc ? cta : atc)) / scale);
        }
      }
    }
    INFO("own rule " << own_rule << " other rule " << other_rule);
    CHECK(own_rule < 1e-5);
    CHECK(other_rule > 1e-3);
  }
}

// signSGD with majority vote (Bernstein et al. 2018): every worker sends the signs of its gradient (signsgd)
// or of its momentum (signum), and every replica steps along the sign of the summed votes.
TEST_CASE("data-parallel majority vote steps along the sign of the summed sign votes") {
  const std::size_t n = 5;  // odd: no ties
  const double beta = GENERATE(0.0, 0.5);
  const std::string collective = GENERATE(as<std::string>{}, "allgather", "parameter_server");
  INFO("momentum " << beta << ", " << collective);
  json scenario = base_scenario(n);
  scenario["data"]["samples"] = 40;
  scenario["data"]["batch_size"] = 5;
  const json compressor =
      beta == 0 ? json{{"kind", "signsgd"}} : json{{"kind", "signum"}, {"momentum", beta}};
  scenario["algorithm"] = {{"kind", "data_parallel"},
                           {"steps", 15},
                           {"lr", 0.01},
                           {"collective", collective},
                           {"compressor", compressor},
                           {"aggregate", "majority_vote"}};
  RecordedRun recorded(scenario, n);
  const scenarios::Scenario& s = recorded.run;
  const Recorder& recorder = recorded.recorder;

  const std::size_t d = s.dimension();
  std::vector<float> x = recorder.models.at({0, 0});
  std::vector<Rng> streams;
  for (std::size_t i = 0; i < n; ++i) streams.push_back(Rng::stream(7, i, Purpose::batch));
  std::vector<std::vector<float>> momentum(n, std::vector<float>(d, 0.0f));
  std::vector<float> gradient(d);
  const float keep = static_cast<float>(beta), take = 1.0f - keep;
  for (std::int64_t t = 0; t < 15; ++t) {
    std::vector<int> votes(d, 0);
    for (std::size_t i = 0; i < n; ++i) {
      s.model().loss_and_gradient(x, s.problem().train, next_batch(s, i, streams[i], 5), gradient);
      for (std::size_t c = 0; c < d; ++c) {
        momentum[i][c] = keep * momentum[i][c] + take * gradient[c];
        votes[c] += momentum[i][c] < 0 ? -1 : 1;
      }
    }
    for (std::size_t c = 0; c < d; ++c) x[c] -= 0.01f * static_cast<float>(votes[c] > 0 ? 1 : -1);
    for (std::size_t i = 0; i < n; ++i) {
      const auto& node = recorder.models.at({t + 1, i});
      for (std::size_t c = 0; c < d; ++c) REQUIRE(node[c] == Approx(x[c]).margin(1e-6));
      REQUIRE(node == recorder.models.at({t + 1, 0}));
    }
  }
}

TEST_CASE("a majority vote needs a sign-vote compressor") {
  json scenario = base_scenario(3);
  scenario["algorithm"] = {{"kind", "data_parallel"},
                           {"steps", 2},
                           {"lr", 0.1},
                           {"compressor", {{"kind", "sign"}}},
                           {"aggregate", "majority_vote"}};
  try {
    scenarios::Scenario run(scenario, "test.json", ".");
    FAIL("a majority vote of scaled signs was accepted");
  } catch (const InputError& e) {
    const std::string message = e.what();
    INFO(message);
    CHECK(message.find("test.json") != std::string::npos);
    CHECK(message.find("$.algorithm.aggregate") != std::string::npos);
    CHECK(message.find("\"signsgd\"") != std::string::npos);
    CHECK(message.find("\"signum\"") != std::string::npos);
  }
}
