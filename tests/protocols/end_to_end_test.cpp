// Protocols run through `sgdsim run` (each simulation in its own process): determinism, the reductions of
// docs/algorithms.md §5, exact timing on the ideal network, and learning on a strongly convex problem.
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/protocols/logistic_ring.hpp"
#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using nlohmann::json;

namespace {

json sparq(double c0, int local_steps, double gamma, json compressor) {
  return {{"kind", "sparq"},
          {"steps", 100},
          {"lr", 0.2},
          {"consensus_step", gamma},
          {"local_steps", local_steps},
          {"trigger", {{"schedule", "constant"}, {"c0", c0}}},
          {"compressor", compressor}};
}

// Only the gradient costs compute time (the communication-only view): reductions between protocols are about
// the learning and the messages; their bookkeeping arithmetic differs (SPARQ's trigger norm, for one).
json communication_only(json scenario) {
  scenario["compute"]["charge"] = {
      {"encode", false}, {"decode", false}, {"mixing", false}, {"update", false}};
  return scenario;
}

}  // namespace

TEST_CASE("the same scenario and seed give a byte-identical trace") {
  json scenario = logistic_ring(8, 100);
  scenario["algorithm"] = sparq(0.5, 2, 0.3, {{"kind", "qsgd"}, {"levels", 4}});
  const Run first = run_scenario(scenario, "determinism-a");
  const Run second = run_scenario(scenario, "determinism-b");
  REQUIRE(first.exit_code == 0);
  REQUIRE(second.exit_code == 0);
  CHECK(first.trace_text == second.trace_text);
  CHECK(first.trace.rows.size() == 6);
  scenario["seed"] = 4;
  const Run other = run_scenario(scenario, "determinism-c");
  REQUIRE(other.exit_code == 0);
  CHECK(other.trace_text != first.trace_text);
}

TEST_CASE("sparq with H=1, c=0, no compression and gamma=1 is D-PSGD") {
  const Run dpsgd = run_scenario(communication_only(logistic_ring(8, 100)), "reduction-dpsgd");
  json scenario = communication_only(logistic_ring(8, 100));
  scenario["algorithm"] = sparq(0.0, 1, 1.0, {{"kind", "none"}});
  const Run reduced = run_scenario(scenario, "reduction-sparq");
  REQUIRE(dpsgd.exit_code == 0);
  REQUIRE(reduced.exit_code == 0);
  REQUIRE(dpsgd.trace.rows.size() == reduced.trace.rows.size());
  for (std::size_t r = 0; r < dpsgd.trace.rows.size(); ++r) {
    for (const char* column : {"step", "bits_sent", "bytes_on_wire", "messages", "sim_time_s"}) {
      CHECK(dpsgd.trace.rows[r].at(column) == reduced.trace.rows[r].at(column));
    }
    // Same algorithm, different float rounding: x_half + (m − x̂) versus Σ w x.
    CHECK(reduced.trace.number(r, "train_loss") == Approx(dpsgd.trace.number(r, "train_loss")).epsilon(1e-5));
    CHECK(reduced.trace.number(r, "consensus_distance") ==
          Approx(dpsgd.trace.number(r, "consensus_distance")).epsilon(1e-3).margin(1e-9));
  }
}

TEST_CASE("sparq with H=1 and c=0 is CHOCO-SGD (compress-first order)") {
  const json compressor = {{"kind", "qsgd"}, {"levels", 8}, {"bucket", 16}};
  json scenario = communication_only(logistic_ring(8, 100));
  scenario["algorithm"] = sparq(0.0, 1, 0.3, compressor);
  const Run reduced = run_scenario(scenario, "reduction-sparq-choco");
  scenario["algorithm"] = {
      {"kind", "choco"}, {"steps", 100}, {"lr", 0.2}, {"consensus_step", 0.3}, {"compressor", compressor}};
  const Run choco = run_scenario(scenario, "reduction-choco");
  REQUIRE(reduced.exit_code == 0);
  REQUIRE(choco.exit_code == 0);
  REQUIRE(choco.trace.rows.size() == reduced.trace.rows.size());
  for (std::size_t r = 0; r < choco.trace.rows.size(); ++r) {
    for (const auto& column : choco.trace.columns) {
      if (column == "triggers") continue;  // CHOCO has no trigger
      CHECK(choco.trace.rows[r].at(column) == reduced.trace.rows[r].at(column));
    }
  }
  // Every node fires at every step.
  CHECK(reduced.trace.number(reduced.trace.rows.size() - 1, "triggers") == 8 * 100);
}

TEST_CASE("an infinite threshold sends zero bits and is independent local SGD") {
  json scenario = logistic_ring(8, 100);
  scenario["algorithm"] = sparq(1e300, 1, 0.5, {{"kind", "qsgd"}, {"levels", 4}});
  scenario["algorithm"]["silence"] = "free";
  const Run free = run_scenario(scenario, "infinite-free");
  REQUIRE(free.exit_code == 0);
  const std::size_t last = free.trace.rows.size() - 1;
  CHECK(free.trace.number(last, "bits_sent") == 0);
  CHECK(free.trace.number(last, "triggers") == 0);
  CHECK(free.trace.number(last, "consensus_distance") > 0);  // nodes drift apart

  scenario["algorithm"]["silence"] = "signal";
  const Run signal = run_scenario(scenario, "infinite-signal");
  REQUIRE(signal.exit_code == 0);
  // One 1-byte signal per neighbour per synchronization: 8 nodes · 2 neighbours · 100 steps.
  CHECK(signal.trace.number(last, "messages") == 1600);
  CHECK(signal.trace.number(last, "bits_sent") == 1600 * 8);
  CHECK(signal.trace.rows[last].at("train_loss") == free.trace.rows[last].at("train_loss"));
}

TEST_CASE("a D-PSGD step on a ring with an infinitely fast host takes latency + 4d/bandwidth") {
  json scenario = communication_only(logistic_ring(6, 10));
  scenario["compute"]["host_speed"] = "1e30f";
  scenario["network"]["link"] = {{"bandwidth", "80Mbps"}, {"latency", "250us"}};
  scenario["eval"]["every"] = 1;
  const Run run = run_scenario(scenario, "dpsgd-timing");
  REQUIRE(run.exit_code == 0);
  const double d = run.summary.at("dimension").get<double>();
  const double step = 250e-6 + 4.0 * d / (80e6 / 8.0);
  for (std::size_t r = 0; r < run.trace.rows.size(); ++r) {
    const double expected = run.trace.number(r, "step") * step;
    CHECK(run.trace.number(r, "sim_time_s") == Approx(expected).epsilon(1e-9).margin(1e-15));
  }
  CHECK(run.trace.number(10, "bits_sent") == 10 * 6 * 2 * 32 * d);
}

TEST_CASE("on a strongly convex problem CHOCO and SPARQ approach D-PSGD's suboptimality") {
  json scenario = logistic_ring(8, 600);
  scenario["eval"]["every"] = 600;
  scenario["algorithm"]["lr"] = {{"schedule", "inverse_time"}, {"value", 0.5}, {"t0", 100}};
  const Run dpsgd = run_scenario(scenario, "convex-dpsgd");
  scenario["algorithm"] = {{"kind", "choco"},
                           {"steps", 600},
                           {"lr", scenario["algorithm"]["lr"]},
                           {"consensus_step", 0.3},
                           {"compressor", {{"kind", "qsgd"}, {"levels", 16}}}};
  const Run choco = run_scenario(scenario, "convex-choco");
  scenario["algorithm"]["kind"] = "sparq";
  scenario["algorithm"]["local_steps"] = 2;
  scenario["algorithm"]["trigger"] = {{"c0", 1.0}};
  const Run sparq_run = run_scenario(scenario, "convex-sparq");
  REQUIRE(dpsgd.exit_code == 0);
  REQUIRE(choco.exit_code == 0);
  REQUIRE(sparq_run.exit_code == 0);
  const double initial = dpsgd.trace.number(0, "suboptimality");
  const double exact = dpsgd.trace.number(1, "suboptimality");
  INFO("initial " << initial << " dpsgd " << exact << " choco " << choco.trace.number(1, "suboptimality")
                  << " sparq " << sparq_run.trace.number(1, "suboptimality"));
  CHECK(exact < 0.05 * initial);
  CHECK(choco.trace.number(1, "suboptimality") < 2 * exact + 0.01 * initial);
  CHECK(sparq_run.trace.number(1, "suboptimality") < 2 * exact + 0.01 * initial);
  // ... with fewer bits than exact gossip.
  CHECK(choco.trace.number(1, "bits_sent") < dpsgd.trace.number(1, "bits_sent"));
  CHECK(sparq_run.trace.number(1, "bits_sent") < choco.trace.number(1, "bits_sent"));
}

TEST_CASE("a ring all-reduce step on a ring with an infinitely fast host takes 2(n-1)(latency + 4(d/n)/bw)") {
  const std::size_t n = 7;
  json scenario = communication_only(logistic_ring(n, 10));
  scenario["compute"]["host_speed"] = "1e30f";
  scenario["network"]["link"] = {{"bandwidth", "80Mbps"}, {"latency", "250us"}};
  scenario["eval"]["every"] = 1;
  scenario["algorithm"] = {
      {"kind", "data_parallel"}, {"steps", 10}, {"lr", 0.2}, {"collective", "ring_allreduce"}};
  const Run run = run_scenario(scenario, "ring-allreduce-timing");
  REQUIRE(run.exit_code == 0);
  const auto d = run.summary.at("dimension").get<std::size_t>();
  REQUIRE(d % n == 0);  // equal chunks, so every step of the schedule takes the same time
  const double chunk = static_cast<double>(d / n);
  const double step = 2.0 * (n - 1) * (250e-6 + 4.0 * chunk / (80e6 / 8.0));
  for (std::size_t r = 0; r < run.trace.rows.size(); ++r) {
    const double expected = run.trace.number(r, "step") * step;
    CHECK(run.trace.number(r, "sim_time_s") == Approx(expected).epsilon(1e-9).margin(1e-15));
  }
  CHECK(run.trace.number(10, "messages") == 10.0 * n * 2 * (n - 1));
  CHECK(run.trace.number(10, "bits_sent") == 10.0 * 2 * (n - 1) * 32 * static_cast<double>(d));
  CHECK(run.trace.number(10, "consensus_distance") == 0);  // replicas identical
}

TEST_CASE("a ring all-reduce on a 4x4 torus follows an embedded cycle: each step as on a 16-node ring") {
  const std::size_t n = 16;
  json scenario = communication_only(logistic_ring(n, 6));
  scenario["data"]["features"] = 31;  // d = 32: equal chunks
  scenario["compute"]["host_speed"] = "1e30f";
  scenario["network"]["link"] = {{"bandwidth", "80Mbps"}, {"latency", "250us"}};
  scenario["eval"]["every"] = 1;
  scenario["algorithm"] = {
      {"kind", "data_parallel"}, {"steps", 6}, {"lr", 0.2}, {"collective", "ring_allreduce"}};
  const Run ring = run_scenario(scenario, "ring16-allreduce");
  scenario["network"]["topology"] = {{"kind", "torus"}, {"dims", {4, 4}}};
  const Run torus = run_scenario(scenario, "torus4x4-allreduce-embedded");
  scenario["algorithm"]["collective"] = {{"kind", "ring_allreduce"}, {"ring", "ids"}};
  const Run ids = run_scenario(scenario, "torus4x4-allreduce-ids");
  REQUIRE(ring.exit_code == 0);
  REQUIRE(torus.exit_code == 0);
  REQUIRE(ids.exit_code == 0);
  const auto d = ring.summary.at("dimension").get<std::size_t>();
  REQUIRE(d % n == 0);
  const double step = 2.0 * (n - 1) * (250e-6 + 4.0 * static_cast<double>(d / n) / (80e6 / 8.0));
  for (std::size_t r = 0; r < ring.trace.rows.size(); ++r) {
    const double expected = ring.trace.number(r, "step") * step;
    CHECK(ring.trace.number(r, "sim_time_s") == Approx(expected).epsilon(1e-9).margin(1e-15));
    CHECK(torus.trace.number(r, "sim_time_s") == Approx(expected).epsilon(1e-9).margin(1e-15));
  }
  // In id order the messages across row ends (3 → 4, ..., 15 → 0) take two hops on the torus, which delays
  // the ring (these chunks are 8 bytes: latency dominates; measured 1.26 times slower).
  CHECK(ids.trace.number(6, "sim_time_s") > 1.2 * torus.trace.number(6, "sim_time_s"));
  CHECK(torus.trace.number(6, "consensus_distance") == 0);
  const json resolved = json::parse(read_text(torus.directory / "resolved.json"));
  CHECK(resolved["algorithm"]["collective"]["ring"] == "embedded");
  const json resolved_ids = json::parse(read_text(ids.directory / "resolved.json"));
  CHECK(resolved_ids["algorithm"]["collective"]["ring"] == "ids");
  // A star has no cycle through every node: the default is the ids, and asking for a cycle is an error.
  scenario["network"]["topology"] = {{"kind", "star"}, {"nodes", 5}};
  scenario["algorithm"]["collective"] = "ring_allreduce";
  const Run star = run_scenario(scenario, "star-allreduce");
  REQUIRE(star.exit_code == 0);
  CHECK(json::parse(read_text(star.directory / "resolved.json"))["algorithm"]["collective"]["ring"] == "ids");
  scenario["algorithm"]["collective"] = {{"kind", "ring_allreduce"}, {"ring", "embedded"}};
  const Run refused = run_scenario(scenario, "star-allreduce-embedded");
  CHECK(refused.exit_code == 2);
  CHECK(refused.output.find("$.algorithm.collective.ring") != std::string::npos);
  CHECK(refused.output.find("star") != std::string::npos);
}

TEST_CASE(
    "powersgd with error feedback trains an MLP data-parallel with messages of (rows + cols)·r float32") {
  const std::size_t n = 4;
  json scenario = logistic_ring(n, 200);
  scenario["eval"]["every"] = 200;
  scenario["model"] = {{"kind", "mlp"}, {"hidden", {16}}, {"l2", 0.0}};
  scenario["algorithm"] = {{"kind", "data_parallel"}, {"steps", 200}, {"lr", 0.2}};
  const Run exact = run_scenario(scenario, "powersgd-fp32");
  scenario["algorithm"]["compressor"] = {{"kind", "powersgd"}, {"rank", 1}};
  scenario["algorithm"]["memory"] = "error_feedback";
  const Run low_rank = run_scenario(scenario, "powersgd-rank1");
  REQUIRE(exact.exit_code == 0);
  REQUIRE(low_rank.exit_code == 0);
  const double initial = low_rank.trace.number(0, "train_loss");
  INFO("initial " << initial << " fp32 " << exact.trace.number(1, "train_loss") << " powersgd "
                  << low_rank.trace.number(1, "train_loss"));
  CHECK(low_rank.trace.number(1, "train_loss") < 0.6 * initial);
  CHECK(low_rank.trace.number(1, "train_loss") < 1.2 * exact.trace.number(1, "train_loss"));
  // W1 16 × 20 at rank 1 (36 floats), b1 16, W2 2 × 16 at rank 1 (18 floats), b2 2: 72 floats, against 370.
  const double message_bits = 8.0 * 4 * (36 + 16 + 18 + 2);
  CHECK(low_rank.trace.number(1, "bits_sent") == 200.0 * n * (n - 1) * message_bits);
  CHECK(exact.trace.number(1, "bits_sent") == 200.0 * n * (n - 1) * 8.0 * 4 * 370);
}

TEST_CASE("dgc with its memory trains data-parallel and sends about the target share of coordinates") {
  const std::size_t n = 4;
  json scenario = logistic_ring(n, 300);
  scenario["eval"]["every"] = 300;
  scenario["data"]["features"] = 200;
  scenario["algorithm"] = {{"kind", "data_parallel"}, {"steps", 300}, {"lr", 0.02}};
  scenario["algorithm"]["compressor"] = {{"kind", "dgc"}, {"fraction", 0.05}, {"sample", 0.5}};
  scenario["algorithm"]["memory"] = {{"kind", "dgc"}, {"momentum", 0.9}};
  const Run run = run_scenario(scenario, "dgc");
  REQUIRE(run.exit_code == 0);
  const double initial = run.trace.number(0, "train_loss"), last = run.trace.number(1, "train_loss");
  INFO("initial " << initial << " after 300 steps " << last);
  CHECK(last < 0.7 * initial);
  // d = 201, k = 10: at most 13 coordinates, each 32 bits plus a gap of at most 14 bits, plus the 32-bit
  // count and padding.
  const double per_message = run.trace.number(1, "bits_sent") / (300.0 * n * (n - 1));
  CHECK(per_message <= 32 + 13 * (32 + 14) + 7);
  CHECK(per_message > 32 + 5 * 32);
}

TEST_CASE("fp16 and bf16 train data-parallel with every collective, with half the bits of fp32") {
  const std::size_t n = 5;  // not a power of two: recursive doubling folds
  json scenario = logistic_ring(n, 20);
  scenario["eval"]["every"] = 20;
  for (const char* collective : {"allgather", "parameter_server", "ring_allreduce", "recursive_doubling"}) {
    scenario["algorithm"] = {
        {"kind", "data_parallel"}, {"steps", 20}, {"lr", 0.2}, {"collective", collective}};
    const Run fp32 = run_scenario(scenario, std::string("fp32-") + collective);
    REQUIRE(fp32.exit_code == 0);
    for (const char* format : {"fp16", "bf16"}) {
      INFO(collective << " " << format);
      scenario["algorithm"]["compressor"] = {{"kind", format}};
      const Run run = run_scenario(scenario, std::string(format) + "-" + collective);
      INFO(run.output);
      REQUIRE(run.exit_code == 0);
      const double bits = run.trace.number(1, "bits_sent"), fp32_bits = fp32.trace.number(1, "bits_sent");
      if (std::string(collective) == "parameter_server")
        CHECK(bits < fp32_bits);  // the uploads; the server's reply keeps its own compressor (fp32)
      else
        CHECK(2 * bits == fp32_bits);
      CHECK(run.trace.number(1, "consensus_distance") == 0);  // replicas identical
      const double initial = fp32.trace.number(0, "train_loss"), loss = fp32.trace.number(1, "train_loss");
      CHECK(loss < initial);
      CHECK(std::abs(run.trace.number(1, "train_loss") - loss) < 0.01 * (initial - loss));
      scenario["algorithm"].erase("compressor");
    }
  }
}

TEST_CASE("a value or an all-reduce sum beyond fp16's range stops the run as diverged, naming it") {
  // Linear regression with a step size far too large: the gradients grow until fp16 cannot carry them.
  json scenario = logistic_ring(5, 200);
  scenario["data"] = {
      {"dataset", "synthetic"}, {"kind", "linear"}, {"samples", 200}, {"features", 7}, {"batch_size", 5}};
  scenario["model"] = {{"kind", "linear"}};
  scenario["eval"]["every"] = 1;
  // The growth is the point: the blow-up rule (eval.blow_up), which would stop the run first, is off.
  scenario["eval"]["blow_up"] = {{"loss_factor", 0}};
  for (const char* collective : {"allgather", "ring_allreduce"}) {
    INFO(collective);
    scenario["algorithm"] = {{"kind", "data_parallel"},
                             {"steps", 200},
                             {"lr", 3.0},
                             {"collective", collective},
                             {"compressor", {{"kind", "fp16"}}}};
    const Run run = run_scenario(scenario, std::string("fp16-overflow-") + collective);
    INFO(run.output);
    CHECK(run.exit_code == 3);
    CHECK(run.output.find("message is not finite (fp16: value") != std::string::npos);
    // fp32 gets through those steps: it is fp16's range that ended the run.
    const std::string marker = "diverged at step ";
    const std::size_t at = run.output.find(marker);
    REQUIRE(at != std::string::npos);
    scenario["algorithm"]["steps"] = std::stoi(run.output.substr(at + marker.size()));
    scenario["algorithm"]["compressor"] = {{"kind", "none"}};
    CHECK(run_scenario(scenario, std::string("fp32-no-overflow-") + collective).exit_code == 0);
  }
}
