// The all-reduce collectives run in-process on the cooperative network (no SimGrid): exact mean,
// bit-identical results on every node, and the message and byte counts of their schedules; the fp32-only
// validation.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/float16.hpp"
#include "algorithms/protocols/collective.hpp"
#include "common/error.hpp"
#include "common/rng.hpp"
#include "common/spec.hpp"
#include "tests/protocols/cooperative_network.hpp"
#include "topologies/graph.hpp"

using namespace sgdsim;
using nlohmann::json;

namespace {

// One round of a collective: node i contributes inputs[i] and keeps what the collective leaves in outputs[i].
// The workers' message is inputs[i] encoded with `compressor`, and `own` that message decoded.
class Round : public protocols::Protocol {
 public:
  Round(protocols::Collective& collective, const compression::Compressor& compressor,
        std::vector<std::vector<float>> inputs)
      : collective_(collective),
        compressor_(compressor),
        inputs(std::move(inputs)),
        outputs(this->inputs.size()) {}
  void run(std::size_t i, protocols::Port& port) override {
    Rng rng(i);
    const protocols::Bytes message = compressor_.encode(inputs[i], rng);
    const std::vector<float> own = compressor_.decode(message, inputs[i].size());
    outputs[i].assign(inputs[i].size(), -1.0f);
    collective_.average(i, message, own, rng, outputs[i], port);
  }

  protocols::Collective& collective_;
  const compression::Compressor& compressor_;
  std::vector<std::vector<float>> inputs, outputs;
};

struct Outcome {
  std::vector<std::vector<float>> inputs, outputs;
  std::vector<protocols::Counters> counters;
};

protocols::PriceTable free_work;  // the cooperative network has no clock

Outcome run_round(const std::string& kind, std::size_t n, std::size_t d, std::uint64_t seed = 1,
                  const std::string& format = "none", const topology::Topology* physical = nullptr,
                  bool integers = false) {
  const std::unique_ptr<compression::Compressor> fp32 =
      compression::make_compressor(json{{"kind", format}}.dump());
  json value = {{"kind", kind}}, resolved;
  Spec spec = Spec::of_family(value, "test", "$.algorithm.collective", resolved, protocols::collectives());
  const std::unique_ptr<protocols::Collective> collective = protocols::make_collective(
      spec, {n, d, fp32.get(), {}, &free_work, nullptr, "test: $.algorithm.compressor", {}, physical});
  Rng rng(seed);
  std::vector<std::vector<float>> inputs(n, std::vector<float>(d));
  // Small integers: every partial sum is exact in fp32, whatever the order.
  for (auto& v : inputs)
    for (float& x : v)
      x = integers ? static_cast<float>(rng.below(200)) - 100.0f
                   : static_cast<float>(2 * rng.uniform() - 1) * 3.0f;
  Round round(*collective, *fp32, inputs);
  testing::CooperativeNetwork network(n);
  network.run(round);
  Outcome outcome{inputs, round.outputs, {}};
  for (std::size_t i = 0; i < n; ++i) outcome.counters.push_back(network.counters(i));
  return outcome;
}

// Every node's result is the mean of the inputs within `tolerance` and equals node 0's bit for bit.
void check_mean_and_identical_within(const Outcome& o, double tolerance) {
  const std::size_t n = o.inputs.size(), d = o.inputs[0].size();
  double worst = 0;
  for (std::size_t c = 0; c < d; ++c) {
    double mean = 0;
    for (std::size_t i = 0; i < n; ++i) mean += o.inputs[i][c];
    mean /= static_cast<double>(n);
    worst = std::max(worst, std::abs(static_cast<double>(o.outputs[0][c]) - mean));
  }
  CHECK(worst < tolerance);
  for (std::size_t i = 1; i < n; ++i) {
    INFO("node " << i);
    CHECK(std::memcmp(o.outputs[i].data(), o.outputs[0].data(), d * sizeof(float)) == 0);
  }
}

// Within float summation error.
void check_mean_and_identical(const Outcome& o) {
  check_mean_and_identical_within(o, 1e-5);
}

// Chunk c of the ring's n near-equal chunks of d.
std::size_t chunk_size(std::size_t c, std::size_t n, std::size_t d) {
  return d / n + (c % n < d % n ? 1 : 0);
}

}  // namespace

TEST_CASE("ring all-reduce: exact mean, identical replicas, 2(n-1) messages of one chunk each") {
  for (std::size_t n : {2, 3, 5, 8}) {
    for (std::size_t d : {1, 2, 3, 7, 13, 100, 1001}) {
      INFO("n " << n << " d " << d);
      const Outcome o = run_round("ring_allreduce", n, d);
      check_mean_and_identical(o);
      std::uint64_t total = 0;
      for (std::size_t i = 0; i < n; ++i) {
        // Node i sends every chunk but i + 1 in the reduce-scatter and every chunk but i + 2 in the
        // all-gather.
        const std::uint64_t expected = 4 * (2 * d - chunk_size(i + 1, n, d) - chunk_size(i + 2, n, d));
        CHECK(o.counters[i].messages == 2 * (n - 1));
        CHECK(o.counters[i].payload_bytes == expected);
        total += o.counters[i].payload_bytes;
      }
      // In all, every chunk crosses n − 1 links in each phase: 2(n − 1) · 4d bytes.
      CHECK(total == 2 * (n - 1) * 4 * d);
    }
  }
}

TEST_CASE("recursive doubling: exact mean, identical replicas, whole-vector exchanges with fold and unfold") {
  for (std::size_t n : {2, 3, 5, 6, 7, 8}) {
    for (std::size_t d : {1, 3, 7, 100}) {
      INFO("n " << n << " d " << d);
      const Outcome o = run_round("recursive_doubling", n, d);
      check_mean_and_identical(o);
      std::size_t p = 1, rounds = 0;
      while (2 * p <= n) p *= 2, ++rounds;
      const std::size_t extra = n - p;
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t messages = i < 2 * extra ? (i % 2 == 0 ? 1 : rounds + 1) : rounds;
        INFO("node " << i);
        CHECK(o.counters[i].messages == messages);
        CHECK(o.counters[i].payload_bytes == messages * 4 * d);
      }
    }
  }
}

TEST_CASE("allgather with fp32 gives the mean too, with 4d(n-1) bytes per node") {
  const std::size_t n = 5, d = 13;
  const Outcome o = run_round("allgather", n, d);
  check_mean_and_identical(o);
  for (std::size_t i = 0; i < n; ++i) CHECK(o.counters[i].payload_bytes == 4 * d * (n - 1));
}

TEST_CASE("a single node's all-reduce is its own vector, with no message") {
  for (const char* kind : {"ring_allreduce", "recursive_doubling"}) {
    const Outcome o = run_round(kind, 1, 5);
    CHECK(o.outputs[0] == o.inputs[0]);
    CHECK(o.counters[0].messages == 0);
  }
}

TEST_CASE("the all-reduce collectives refuse a compressor other than none, naming where it is set") {
  const std::unique_ptr<compression::Compressor> qsgd =
      compression::make_compressor(R"({"kind": "qsgd", "levels": 4})");
  for (const char* kind : {"ring_allreduce", "recursive_doubling"}) {
    json value = {{"kind", kind}}, resolved;
    Spec spec =
        Spec::of_family(value, "s.json", "$.algorithm.collective", resolved, protocols::collectives());
    try {
      protocols::make_collective(
          spec, {4, 10, qsgd.get(), {}, &free_work, nullptr, "s.json: $.algorithm.compressor", {}});
      FAIL("no error for " << kind);
    } catch (const InputError& e) {
      const std::string what = e.what();
      INFO(what);
      CHECK(what.find("s.json: $.algorithm.compressor") == 0);
      CHECK(what.find(kind) != std::string::npos);
      CHECK(what.find("\"none\"") != std::string::npos);
    }
  }
}

TEST_CASE("the all-reduce collectives sum fp16 and bf16 in their own precision, 2 bytes per coordinate") {
  for (const char* format : {"fp16", "bf16"}) {
    const bool fp16 = std::string(format) == "fp16";
    auto to = [fp16](float x) { return fp16 ? compression::to_fp16(x) : compression::to_bf16(x); };
    auto from = [fp16](std::uint16_t h) {
      return fp16 ? compression::from_fp16(h) : compression::from_bf16(h);
    };
    const double u = fp16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
    for (const char* kind : {"ring_allreduce", "recursive_doubling"}) {
      // Two nodes: one sum, rounded once to the format, then halved in fp32 (the same on both nodes).
      {
        INFO(format << " " << kind << " n 2");
        const Outcome o = run_round(kind, 2, 37, 3, format);
        for (std::size_t c = 0; c < 37; ++c) {
          const float a = from(to(o.inputs[0][c])), b = from(to(o.inputs[1][c]));
          CHECK(o.outputs[0][c] == from(to(a + b)) * 0.5f);
        }
        check_mean_and_identical_within(o, 2 * u * 3);
      }
      for (std::size_t n : {3, 5, 8}) {
        INFO(format << " " << kind << " n " << n);
        const std::size_t d = 101;
        const Outcome o = run_round(kind, n, d, 4, format);
        // Each of the n − 1 additions rounds once, by at most u times the partial sum (≤ Σ|x| ≤ 3n), and the
        // inputs were rounded too: |mean − exact mean| ≤ u · 3 + (n − 1) · u · 3n / n.
        check_mean_and_identical_within(o, u * 3 * static_cast<double>(n) + 1e-6);
        std::uint64_t total = 0;
        for (std::size_t i = 0; i < n; ++i) total += o.counters[i].payload_bytes;
        const Outcome fp32 = run_round(kind, n, d, 4);
        std::uint64_t fp32_total = 0;
        for (std::size_t i = 0; i < n; ++i) fp32_total += fp32.counters[i].payload_bytes;
        CHECK(2 * total == fp32_total);
      }
    }
  }
}

namespace {

// A cluster of `hosts` × `devices`: device g of host h is node h·devices + g (the links do not matter here).
topology::Topology cluster(std::size_t hosts, std::size_t devices) {
  const std::size_t n = hosts * devices;
  topology::EdgeList edges;
  std::vector<std::string> routers;
  for (std::size_t h = 0; h < hosts; ++h) routers.push_back("host" + std::to_string(h));
  for (std::size_t i = 0; i < n; ++i) edges.emplace_back(i, n + i / devices);
  routers.push_back("switch");
  for (std::size_t h = 0; h < hosts; ++h) edges.emplace_back(n + h, n + hosts);
  topology::Topology t = topology::build_topology("cluster", n, edges, {1e9, 1e-6}, routers);
  t.gpus_per_host = devices;
  return t;
}

}  // namespace

TEST_CASE(
    "hierarchical all-reduce: the bit-exact sum on every node, 2(G-1) intra- and 2(H-1) inter-host "
    "messages") {
  for (auto [hosts, devices] : {std::pair<std::size_t, std::size_t>{2, 4}, {3, 2}, {1, 4}, {4, 1}, {3, 3}}) {
    const topology::Topology network = cluster(hosts, devices);
    const std::size_t n = hosts * devices;
    for (std::size_t d : {1, 2, 5, 13, 100, 1001}) {
      INFO("hosts " << hosts << " devices " << devices << " d " << d);
      const Outcome o = run_round("hierarchical_allreduce", n, d, 7, "none", &network, true);
      for (std::size_t c = 0; c < d; ++c) {
        float sum = 0;  // integers: exact in any order
        for (std::size_t i = 0; i < n; ++i) sum += o.inputs[i][c];
        CHECK(o.outputs[0][c] == sum * (1.0f / static_cast<float>(n)));
      }
      check_mean_and_identical(o);
      std::uint64_t total = 0;
      for (std::size_t i = 0; i < n; ++i) {
        CHECK(o.counters[i].messages == 2 * (devices - 1) + 2 * (hosts - 1));
        total += o.counters[i].payload_bytes;
      }
      // Inside each host every chunk crosses G − 1 links in each phase (the whole vector: 2(G − 1) · 4d per
      // host); across hosts each shard does so H − 1 times (2(H − 1) · 4d per device rank, G ranks).
      CHECK(total == 2 * (devices - 1) * 4 * d * hosts + 2 * (hosts - 1) * 4 * d);
    }
  }
}

TEST_CASE(
    "hierarchical all-reduce on a network without hosts is ring all-reduce in id order, float for float") {
  for (std::size_t n : {2, 5, 8}) {
    const Outcome ring = run_round("ring_allreduce", n, 101, 9);
    const Outcome hierarchical = run_round("hierarchical_allreduce", n, 101, 9);
    for (std::size_t i = 0; i < n; ++i) {
      CHECK(std::memcmp(ring.outputs[i].data(), hierarchical.outputs[i].data(), 101 * sizeof(float)) == 0);
      CHECK(ring.counters[i].payload_bytes == hierarchical.counters[i].payload_bytes);
    }
  }
}
