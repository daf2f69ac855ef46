// Data-parallel's overlap of bucketed averaging with the backward pass (PyTorch DDP): the step time of a
// 2-node run with two buckets and its split into computing, hidden and exposed communication against the hand
// formula, never slower than without overlap, compute only on an infinitely fast network, and the same
// learning either way; for a model that knows its layers (LeNet-5), each bucket waits for its layers'
// backward pass, on the CPU and on an accelerator. Every run is its own process.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "algorithms/learning/torch_plugin.hpp"
#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using nlohmann::json;

namespace {

constexpr int steps = 4;

// Two nodes on one link; a 784-16-10 MLP (tensors W1: 12544, b1: 16, W2: 160, b2: 10). With bucket_cap 700B
// the buckets in backward order are {b1, W2, b2} (186 floats, 744 bytes) and {W1} (12544 floats). Only the
// gradient costs compute time, so the step is the backward pass and the messages.
json two_nodes(const std::string& bandwidth, const std::string& latency, bool overlap,
               const std::string& collective = "allgather", const std::string& cap = "700B") {
  return {{"seed", 5},
          {"network",
           {{"topology", {{"kind", "complete"}, {"nodes", 2}}},
            {"link", {{"bandwidth", bandwidth}, {"latency", latency}}},
            {"model", "ideal"},
            {"header_bytes", 0}}},
          {"compute",
           {{"host_speed", "100Mf"},
            {"charge", {{"encode", false}, {"decode", false}, {"mixing", false}, {"update", false}}}}},
          {"data", {{"dataset", "fashion-mnist"}, {"samples", 200}, {"test_samples", 50}, {"batch_size", 8}}},
          {"model", {{"kind", "mlp"}, {"hidden", {16}}}},
          {"algorithm",
           {{"kind", "data_parallel"},
            {"steps", steps},
            {"lr", 0.05},
            {"collective", collective},
            {"bucket_cap", cap},
            {"overlap", overlap}}},
          {"eval", {{"every", 2}}}};
}

double last(const Run& run, const char* column) {
  return std::stod(run.trace.rows.back().at(column));
}

Run run_ok(const json& scenario, const std::string& label) {
  Run run = run_scenario(scenario, label);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  return run;
}

}  // namespace

TEST_CASE("overlap: two buckets on two nodes take the hand formula's step time") {
  for (const char* latency : {"1ms", "5ms"}) {
    INFO(latency);
    const Run plain = run_ok(two_nodes("100Mbps", latency, false), "formula-plain");
    const Run overlapped = run_ok(two_nodes("100Mbps", latency, true), "formula-overlap");
    // G: one minibatch gradient's seconds (the run without overlap charges it whole).
    const double G = last(plain, "gradient_s") / steps;
    const double L = std::stod(latency) * 1e-3, B = 100e6 / 8;
    const double n0 = 186, n1 = 12544, d = n0 + n1;
    // The forward pass (G/3), then bucket 0's backward share; its exchange runs while bucket 1's gradients
    // are computed; bucket 1's exchange starts when both its gradients and bucket 0's exchange are done.
    const double bucket0_done = G / 3 + (2.0 / 3) * (n0 / d) * G + L + 4 * n0 / B;
    const double expected = std::max(G, bucket0_done) + L + 4 * n1 / B;
    const double step = last(overlapped, "sim_time_s") / steps;
    CHECK(step == Approx(expected).epsilon(1e-9));
    // Without overlap: the whole gradient, then one exchange of the whole vector.
    CHECK(last(plain, "sim_time_s") / steps == Approx(G + L + 4 * d / B).epsilon(1e-9));

    // The node's time split: bucket 0's exchange is hidden behind bucket 1's backward share for as long as
    // both last; nothing else overlaps (only the gradient costs compute time), so the waiting is the rest.
    const double hidden = std::min(L + 4 * n0 / B, (2.0 / 3) * (n1 / d) * G);
    const json& time = overlapped.summary["node_time_s"];
    CHECK(time["communicating_while_computing"]["mean"].get<double>() ==
          Approx(steps * hidden).epsilon(1e-9));
    CHECK(time["computing"]["mean"].get<double>() == Approx(steps * G).epsilon(1e-9));
    CHECK(time["waiting_on_network"]["mean"].get<double>() ==
          Approx(last(overlapped, "sim_time_s") - steps * G).epsilon(1e-9));
    CHECK(plain.summary["node_time_s"]["communicating_while_computing"]["max"] == 0.0);
  }
}

TEST_CASE("overlap: never slower than without overlap, without latency") {
  for (const char* bandwidth : {"1Mbps", "10Mbps", "100Mbps", "1Gbps", "10Gbps"}) {
    for (const char* cap : {"700B", "1B"}) {
      INFO(bandwidth << " " << cap);
      const Run plain = run_ok(two_nodes(bandwidth, "0ms", false, "allgather", cap), "never-plain");
      const Run overlapped = run_ok(two_nodes(bandwidth, "0ms", true, "allgather", cap), "never-overlap");
      CHECK(last(overlapped, "sim_time_s") <= last(plain, "sim_time_s") * (1 + 1e-12));
    }
  }
}

TEST_CASE("overlap: on an infinitely fast network the step is the gradient's compute") {
  const Run plain = run_ok(two_nodes("100Mbps", "0ms", false), "fast-plain");
  const double G = last(plain, "gradient_s") / steps;
  const Run fast = run_ok(two_nodes("1000Tbps", "0ms", true), "fast-overlap");
  CHECK(last(fast, "sim_time_s") / steps == Approx(G).epsilon(1e-6));
}

TEST_CASE("overlap: the learning columns are those of the run without overlap") {
  for (const char* collective : {"allgather", "parameter_server"}) {
    INFO(collective);
    const Run plain = run_ok(two_nodes("100Mbps", "1ms", false, collective, "1B"), "learning-plain");
    const Run overlapped = run_ok(two_nodes("100Mbps", "1ms", true, collective, "1B"), "learning-overlap");
    REQUIRE(plain.trace.rows.size() == overlapped.trace.rows.size());
    for (std::size_t r = 0; r < plain.trace.rows.size(); ++r) {
      for (const char* column : {"step", "train_loss", "test_accuracy", "consensus_distance", "bits_sent"})
        CHECK(plain.trace.rows[r].at(column) == overlapped.trace.rows[r].at(column));
    }
    // ...while the timing did change (four buckets: four rounds of the collective per step).
    CHECK(last(overlapped, "sim_time_s") != last(plain, "sim_time_s"));
  }
}

TEST_CASE("overlap: a compressor that is not a float format is refused with overlap, named") {
  json scenario = two_nodes("100Mbps", "1ms", true);
  scenario["algorithm"]["compressor"] = {{"kind", "qsgd"}, {"levels", 4}};
  const Run run = run_scenario(scenario, "refused");
  CHECK(run.exit_code == 2);
  CHECK(run.output.find("$.algorithm.overlap") != std::string::npos);
  // By default such a run does not overlap.
  scenario["algorithm"].erase("overlap");
  CHECK(run_scenario(scenario, "default-off").exit_code == 0);
}

namespace {

// The two-node run with LeNet-5 (tensors in flat order: conv1 150 + 6, conv2 2400 + 16, fc1 48000 + 120,
// fc2 10080 + 84, fc3 840 + 10). With bucket_cap 100kB the buckets in backward order are {fc1, fc2, fc3}
// (59134 floats) and {conv1, conv2} (2572 floats). `compute` replaces the CPU settings when given.
json lenet5_nodes(const std::string& bandwidth, const std::string& latency, bool overlap,
                  const json& compute = nullptr) {
  json scenario = two_nodes(bandwidth, latency, overlap, "allgather", "100kB");
  scenario["model"] = {{"kind", "lenet5"}};
  if (!compute.is_null()) scenario["compute"] = compute;
  return scenario;
}

// LeNet-5's layers on 1x28x28 images, 10 classes, in forward order, with the flop conventions of
// docs/learning.md: forward + backward flops of one sample and kernels (a layer's forward pass is one of
// them, and that share of its flops).
struct Layer {
  double flops, kernels;
};
std::vector<Layer> lenet5_layers() {
  const auto conv = [](double cin, double cout, double k, double hw, bool first) {
    const double forward = 2 * cin * k * k * cout * hw;
    return Layer{(first ? 2 : 3) * forward + 2 * cout * hw, first ? 2.0 : 3.0};  // with a bias
  };
  const auto linear = [](double n, double m) { return Layer{2 * (2 * n * m + m) + 2 * n * m, 3}; };
  const auto relu = [](double elements) { return Layer{2 * elements, 2}; };
  const auto pool = [](double outputs) { return Layer{4 * outputs, 2}; };  // 2x2: 3 comparisons, 1 back
  return {conv(1, 6, 5, 28 * 28, true),
          relu(6 * 28 * 28),
          pool(6 * 14 * 14),
          conv(6, 16, 5, 10 * 10, false),
          relu(16 * 10 * 10),
          pool(16 * 5 * 5),
          linear(400, 120),
          relu(120),
          linear(120, 84),
          relu(84),
          linear(84, 10),
          Layer{5 * 10 + 1, 2}};
}

bool without_libtorch() {
  if (sgdsim::learning::torch_built()) return false;
  SUCCEED("built without libtorch");
  return true;
}

}  // namespace

TEST_CASE("overlap: each bucket of LeNet-5 waits for the backward pass of its layers (hand formula)") {
  if (without_libtorch()) return;
  const std::vector<Layer> layers = lenet5_layers();
  const double batch = 8, speed = 100e6;
  double total = 0, forward = 0, fc_backward = 0;  // flops per sample
  for (std::size_t l = 0; l < layers.size(); ++l) {
    total += layers[l].flops;
    forward += layers[l].flops / layers[l].kernels;
    if (l >= 6) fc_backward += layers[l].flops * (1 - 1 / layers[l].kernels);  // fc1 and above
  }
  for (const char* bandwidth : {"10Mbps", "100Mbps"}) {
    INFO(bandwidth);
    const Run plain = run_ok(lenet5_nodes(bandwidth, "1ms", false), "lenet5-plain");
    const Run overlapped = run_ok(lenet5_nodes(bandwidth, "1ms", true), "lenet5-overlap");
    const double G = last(plain, "gradient_s") / steps;
    CHECK(G == Approx(total * batch / speed).epsilon(1e-12));  // the layers are the model's flop count
    const double L = 1e-3, B = std::stod(bandwidth) * 1e6 / 8;
    const double n0 = 59134, n1 = 2572;
    // The forward pass, then the backward pass of fc3 down to fc1: bucket 0's exchange starts, while the
    // backward pass of the convolutions goes on; bucket 1's starts when both are done.
    const double bucket0_done = (forward + fc_backward) * batch / speed + L + 4 * n0 / B;
    const double expected = std::max(G, bucket0_done) + L + 4 * n1 / B;
    CHECK(last(overlapped, "sim_time_s") / steps == Approx(expected).epsilon(1e-9));
    CHECK(last(overlapped, "gradient_s") / steps == Approx(G).epsilon(1e-12));
  }
  // At 10 Mbps bucket 0's exchange outlasts the convolutions' backward pass, at 100 Mbps it hides behind it.
  CHECK(4 * 59134 / (10e6 / 8) > (total - forward - fc_backward) * batch / speed);
  CHECK(4 * 59134 / (100e6 / 8) + 1e-3 < (total - forward - fc_backward) * batch / speed);
}

TEST_CASE(
    "overlap: LeNet-5 on the CPU and on an accelerator: without latency never slower where the network "
    "counts, compute only on a fast network (CPU), the same learning") {
  if (without_libtorch()) return;
  for (const json& compute : {json(nullptr), json{{"profile", "a100-amp"}}}) {
    INFO(compute.dump());
    const bool accelerator = !compute.is_null();
    for (const char* bandwidth : {"10Mbps", "1Gbps", "100Gbps"}) {
      INFO(bandwidth);
      const Run plain = run_ok(lenet5_nodes(bandwidth, "0ms", false, compute), "lenet5-never-plain");
      const Run overlapped = run_ok(lenet5_nodes(bandwidth, "0ms", true, compute), "lenet5-never-overlap");
      // On the accelerator each bucket's encoding, decoding and averaging are kernels of their own: at 100
      // Gbps a LeNet-5 exchange (0.25 MB) takes 20 us, less than the second bucket's launches cost.
      if (!accelerator || std::string(bandwidth) != "100Gbps")
        CHECK(last(overlapped, "sim_time_s") <= last(plain, "sim_time_s") * (1 + 1e-12));
      REQUIRE(plain.trace.rows.size() == overlapped.trace.rows.size());
      for (std::size_t r = 0; r < plain.trace.rows.size(); ++r) {
        for (const char* column : {"step", "train_loss", "test_accuracy", "consensus_distance", "bits_sent"})
          CHECK(plain.trace.rows[r].at(column) == overlapped.trace.rows[r].at(column));
      }
    }
    // On an infinitely fast network the step is the node's compute: on the CPU (only the gradient charged)
    // the forward pass and the buckets' backward passes add up to the gradient, the same with and without
    // overlap; on the accelerator the second bucket's kernels add their launches (and share the device with
    // the backward pass, which then takes longer).
    const Run plain = run_ok(lenet5_nodes("1000Tbps", "0ms", false, compute), "lenet5-fast-plain");
    const Run fast = run_ok(lenet5_nodes("1000Tbps", "0ms", true, compute), "lenet5-fast-overlap");
    if (accelerator) {
      CHECK(last(fast, "sim_time_s") > last(plain, "sim_time_s"));
    } else {
      CHECK(last(fast, "gradient_s") == Approx(last(plain, "gradient_s")).epsilon(1e-12));
      CHECK(last(fast, "sim_time_s") == Approx(last(plain, "sim_time_s")).epsilon(1e-6));
    }
  }
}
