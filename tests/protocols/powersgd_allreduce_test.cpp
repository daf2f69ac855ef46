// The protocol kind powersgd (PowerSGD as published, Vogels et al. 2019) against a hand recursion of the
// paper's Algorithms 1 and 2 at rank 1 (P̂ = P/‖P‖), its bits per step against 2(n−1)·32·(Σ r(rows + cols) +
// the uncompressed floats) on ring all-reduce, and against the powersgd compressor with error feedback on
// one worker, where sharing the subspace changes nothing.
#include <catch2/catch.hpp>

#include <cmath>

#include "algorithms/compression/layout.hpp"
#include "algorithms/compression/powersgd.hpp"
#include "scenarios/wiring/scenario.hpp"
#include "tests/protocols/cooperative_network.hpp"
#include "tests/protocols/model_recorder.hpp"

using namespace sgdsim;
using nlohmann::json;

namespace {

constexpr int steps = 6;
constexpr double lr = 0.2;

// One sample per worker and batches of one: each worker's gradient is a function of the shared model alone.
// An MLP 6 → 5 → 2: weight matrices 5×6 and 2×5 (both low rank at r = 1), biases uncompressed.
json scenario(std::size_t nodes, const json& algorithm) {
  json s = {{"seed", 3},
            {"network", {{"topology", {{"kind", "complete"}, {"nodes", nodes}}}}},
            {"data",
             {{"dataset", "synthetic"},
              {"kind", "logistic"},
              {"samples", nodes},
              {"features", 6},
              {"partition", "iid"},
              {"batch_size", 1}}},
            {"model", {{"kind", "mlp"}, {"hidden", {5}}}},
            {"eval", {{"every", 1}}}};
  s["algorithm"] = algorithm;
  s["algorithm"]["steps"] = steps;
  s["algorithm"]["lr"] = lr;
  return s;
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

}  // namespace

TEST_CASE("powersgd all-reduces P, orthonormalises the mean, all-reduces Q: a hand recursion at rank 1") {
  const std::size_t n = 3;
  for (const char* collective : {"ring_allreduce", "allgather"}) {
    INFO(collective);
    RecordedRun recorded(scenario(n, {{"kind", "powersgd"}, {"collective", {{"kind", collective}}}}), n);
    const protocols::Environment& environment = recorded.run.environment();
    const learning::Model& model = *environment.model;
    const std::size_t d = model.dimension();
    std::vector<compression::Tensor> tensors;
    for (const learning::Model::Shape& shape : model.tensor_shapes())
      tensors.push_back({shape.rows, shape.cols});
    // The shared Q of each matrix starts from the compressor's draw; the errors from zero.
    std::vector<std::vector<double>> q;
    std::size_t matrices = 0;
    for (const compression::Tensor& t : tensors)
      if (t.is_matrix()) {
        const std::vector<float> first = compression::initial_q(matrices++, t.cols, 1);
        q.emplace_back(first.begin(), first.end());
      }
    REQUIRE(matrices == 2);
    std::vector<std::vector<double>> error(n, std::vector<double>(d, 0.0));
    std::vector<float> x = recorded.recorder.models.at({0, 0}), gradient(d);
    for (int t = 0; t < steps; ++t) {
      std::vector<std::vector<double>> m(n, std::vector<double>(d));
      for (std::size_t i = 0; i < n; ++i) {
        model.loss_and_gradient(x, *environment.train, recorded.run.shards()[i], gradient);
        for (std::size_t c = 0; c < d; ++c) m[i][c] = gradient[c] + error[i][c];
      }
      std::vector<double> update(d, 0.0);
      std::size_t begin = 0, k = 0;
      for (const compression::Tensor& a : tensors) {
        if (!a.is_matrix()) {
          for (std::size_t c = begin; c < begin + a.size(); ++c)
            for (std::size_t i = 0; i < n; ++i) update[c] += m[i][c] / n;  // sent whole, exactly
          begin += a.size();
          continue;
        }
        // P = mean M_i Q; P̂ = P/‖P‖; Q_i = M_iᵀ P̂; e_i = M_i − P̂ Q_iᵀ; Q = mean Q_i; update P̂ Qᵀ.
        std::vector<double> p(a.rows, 0.0), mean_q(a.cols, 0.0);
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t r = 0; r < a.rows; ++r)
            for (std::size_t c = 0; c < a.cols; ++c) p[r] += m[i][begin + r * a.cols + c] * q[k][c] / n;
        double norm = 0;
        for (double v : p) norm += v * v;
        for (double& v : p) v /= std::sqrt(norm);
        for (std::size_t i = 0; i < n; ++i) {
          std::vector<double> qi(a.cols, 0.0);
          for (std::size_t r = 0; r < a.rows; ++r)
            for (std::size_t c = 0; c < a.cols; ++c) qi[c] += m[i][begin + r * a.cols + c] * p[r];
          for (std::size_t r = 0; r < a.rows; ++r)
            for (std::size_t c = 0; c < a.cols; ++c)
              error[i][begin + r * a.cols + c] = m[i][begin + r * a.cols + c] - p[r] * qi[c];
          for (std::size_t c = 0; c < a.cols; ++c) mean_q[c] += qi[c] / n;
        }
        for (std::size_t r = 0; r < a.rows; ++r)
          for (std::size_t c = 0; c < a.cols; ++c) update[begin + r * a.cols + c] = p[r] * mean_q[c];
        q[k++] = mean_q;  // warm start
        begin += a.size();
      }
      for (std::size_t c = 0; c < d; ++c) x[c] = static_cast<float>(x[c] - lr * update[c]);
      for (std::size_t i = 0; i < n; ++i) {
        const std::vector<float>& simulated = recorded.recorder.models.at({t + 1, i});
        for (std::size_t c = 0; c < d; ++c) REQUIRE(simulated[c] == Approx(x[c]).margin(1e-5).epsilon(1e-4));
      }
      x = recorded.recorder.models.at({t + 1, 0});  // follow the simulation, so that errors do not compound
    }
  }
}

TEST_CASE("powersgd's bits per step on ring all-reduce are 2(n-1)·32·(Σ r(rows + cols) + uncompressed)") {
  const std::size_t n = 4;
  for (int rank : {1, 2}) {
    RecordedRun recorded(scenario(n, {{"kind", "powersgd"}, {"rank", rank}}), n);
    double factors = 0;
    for (const learning::Model::Shape& shape : recorded.run.environment().model->tensor_shapes()) {
      const compression::Tensor t{shape.rows, shape.cols};
      const std::size_t r = std::min<std::size_t>({static_cast<std::size_t>(rank), t.rows, t.cols});
      const bool low = t.is_matrix() && (t.rows + t.cols) * r < t.size();
      factors += low ? static_cast<double>((t.rows + t.cols) * r) : static_cast<double>(t.size());
    }
    double bits = 0;
    for (std::size_t i = 0; i < n; ++i)
      bits += 8.0 * static_cast<double>(recorded.network.counters(i).payload_bytes);
    CHECK(bits == steps * 2.0 * (n - 1) * 32.0 * factors);
  }
}

TEST_CASE("powersgd on one worker is the powersgd compressor with error feedback") {
  RecordedRun published(scenario(1, {{"kind", "powersgd"}, {"collective", {{"kind", "allgather"}}}}), 1);
  RecordedRun compressor(scenario(1, {{"kind", "data_parallel"},
                                      {"compressor", {{"kind", "powersgd"}, {"rank", 1}}},
                                      {"memory", "error_feedback"}}),
                         1);
  for (int t = 1; t <= steps; ++t) {
    const std::vector<float>& a = published.recorder.models.at({t, 0});
    const std::vector<float>& b = compressor.recorder.models.at({t, 0});
    REQUIRE(a.size() == b.size());
    // P goes through the all-reduce as float32 before Gram-Schmidt, the compressor's stays double.
    for (std::size_t c = 0; c < a.size(); ++c) CHECK(a[c] == Approx(b[c]).margin(1e-6).epsilon(1e-5));
  }
}
