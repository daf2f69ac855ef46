// The thc collective in-process on the cooperative network: every node ends with the decoded integer sum,
// which is the mean of the workers' decoded vectors; the bytes of its schedule against the formula; the
// workers' compressor must be none.
#include <catch2/catch.hpp>

#include <bit>
#include <cmath>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/hadamard.hpp"
#include "algorithms/compression/thc.hpp"
#include "algorithms/protocols/collective.hpp"
#include "common/error.hpp"
#include "common/rng.hpp"
#include "common/spec.hpp"
#include "tests/protocols/cooperative_network.hpp"

using namespace sgdsim;
using nlohmann::json;

namespace {

// One round: node i contributes inputs[i] (fp32, so `own` is the vector itself) with the stream Rng(i).
class Round : public protocols::Protocol {
 public:
  Round(protocols::Collective& collective, std::vector<std::vector<float>> inputs)
      : collective_(collective), inputs(std::move(inputs)), outputs(this->inputs.size()) {}
  void run(std::size_t i, protocols::Port& port) override {
    Rng rng(i);
    outputs[i].assign(inputs[i].size(), -1.0f);
    collective_.average(i, {}, inputs[i], rng, outputs[i], port);
  }
  protocols::Collective& collective_;
  std::vector<std::vector<float>> inputs, outputs;
};

protocols::PriceTable free_work;

struct Outcome {
  std::vector<std::vector<float>> inputs, outputs;
  std::vector<protocols::Counters> counters;
};

Outcome run_thc(std::size_t n, std::size_t d, const json& collective_object) {
  const std::unique_ptr<compression::Compressor> fp32 = compression::make_compressor(R"({"kind": "none"})");
  json value = collective_object, resolved;
  Spec spec = Spec::of_family(value, "test", "$.algorithm.collective", resolved, protocols::collectives());
  const std::unique_ptr<protocols::Collective> collective = protocols::make_collective(
      spec, {n, d, fp32.get(), {}, &free_work, nullptr, "test: $.algorithm.compressor", {}});
  Rng rng(n * 1000 + d);
  std::vector<std::vector<float>> inputs(n, std::vector<float>(d));
  for (std::size_t i = 0; i < n; ++i)
    for (float& x : inputs[i]) x = static_cast<float>(rng.normal()) * static_cast<float>(i + 1);
  Round round(*collective, inputs);
  testing::CooperativeNetwork network(n);
  network.run(round);
  Outcome outcome{inputs, round.outputs, {}};
  for (std::size_t i = 0; i < n; ++i) outcome.counters.push_back(network.counters(i));
  return outcome;
}

std::size_t chunk_size(std::size_t c, std::size_t n, std::size_t d) {
  return d / n + (c % n < d % n ? 1 : 0);
}

}  // namespace

TEST_CASE("thc: the all-reduced integer sum decodes to the mean of the workers' decoded vectors") {
  for (const std::size_t n : {2, 3, 5}) {
    for (const std::size_t d : {1, 7, 100}) {
      INFO("n " << n << " d " << d);
      const Outcome o = run_thc(n, d, {{"kind", "thc"}, {"bits", 3}, {"rotation_seed", 9}});
      // The oracle: the frame of the largest norm, each worker's indices from its stream, their sum.
      const compression::RandomizedHadamard rotation(d, 9);
      const std::size_t padded = rotation.padded();
      float largest = 0;
      for (const auto& x : o.inputs) {
        double squares = 0;
        for (const float v : x) squares += static_cast<double>(v) * v;
        largest = std::max(largest, static_cast<float>(std::sqrt(squares)));
      }
      const compression::ThcFrame frame = compression::thc_frame(largest, padded, 1e-4, 3);
      std::vector<std::uint32_t> sums(padded, 0), indices(padded);
      std::vector<float> rotated(padded), level(padded), decoded(d);
      std::vector<double> mean(d, 0.0);
      for (std::size_t i = 0; i < n; ++i) {
        Rng rng(i);
        rotation.forward(o.inputs[i], rotated);
        compression::thc_quantize(rotated, frame, rng, indices);
        compression::thc_decode_sums(indices, 1, frame, level);
        rotation.inverse(level, decoded);
        for (std::size_t c = 0; c < padded; ++c) sums[c] += indices[c];
        for (std::size_t c = 0; c < d; ++c) mean[c] += decoded[c] / static_cast<double>(n);
      }
      compression::thc_decode_sums(sums, n, frame, level);
      std::vector<float> expected(d);
      rotation.inverse(level, expected);
      for (std::size_t i = 0; i < n; ++i) CHECK(o.outputs[i] == expected);
      double worst = 0;
      for (std::size_t c = 0; c < d; ++c)
        worst = std::max(worst, std::abs(static_cast<double>(o.outputs[0][c]) - mean[c]));
      CHECK(worst < 1e-5 * largest);
    }
  }
}

TEST_CASE("thc: per node n − 1 norms of 4 bytes and 2(n − 1) chunks of integer sums of growing width") {
  for (const std::size_t n : {2, 3, 4, 7}) {
    for (const std::size_t d : {3, 64, 1000}) {
      INFO("n " << n << " d " << d);
      const unsigned bits = 4;
      const Outcome o = run_thc(n, d, {{"kind", "thc"}, {"bits", bits}});
      const std::size_t padded = std::bit_ceil(d);
      for (std::size_t i = 0; i < n; ++i) {
        std::uint64_t expected = 4 * (n - 1);
        for (std::size_t s = 0; s + 1 < n; ++s) {
          // Reduce-scatter: chunk i − s holds s + 1 workers' indices; all-gather: chunk i + 1 − s, n.
          expected += (chunk_size(i + n - s, n, padded) * compression::sum_width(16, s + 1) + 7) / 8;
          expected += (chunk_size(i + 1 + n - s, n, padded) * compression::sum_width(16, n) + 7) / 8;
        }
        CHECK(o.counters[i].messages == 3 * (n - 1));
        CHECK(o.counters[i].payload_bytes == expected);
      }
    }
  }
}

TEST_CASE("thc refuses a workers' compressor other than none, naming where it is set") {
  const std::unique_ptr<compression::Compressor> fp16 = compression::make_compressor(R"({"kind": "fp16"})");
  json value = {{"kind", "thc"}}, resolved;
  Spec spec = Spec::of_family(value, "test", "$.algorithm.collective", resolved, protocols::collectives());
  CHECK_THROWS_WITH(
      protocols::make_collective(
          spec, {3, 10, fp16.get(), {}, &free_work, nullptr, "test: $.algorithm.compressor", {}}),
      Catch::Contains("test: $.algorithm.compressor") && Catch::Contains("\"none\""));
}

namespace {
// Two rounds on the same collective: node i contributes first[i], then second[i], with one stream Rng(i).
class TwoRounds : public protocols::Protocol {
 public:
  TwoRounds(protocols::Collective& collective, std::vector<std::vector<float>> first,
            std::vector<std::vector<float>> second)
      : collective_(collective),
        first(std::move(first)),
        second(std::move(second)),
        outputs(this->first.size()) {}
  void run(std::size_t i, protocols::Port& port) override {
    Rng rng(i);
    std::vector<float> scratch(first[i].size());
    collective_.average(i, {}, first[i], rng, scratch, port);
    outputs[i].assign(first[i].size(), -1.0f);
    collective_.average(i, {}, second[i], rng, outputs[i], port);
  }
  protocols::Collective& collective_;
  std::vector<std::vector<float>> first, second, outputs;
};

// One round of THC by hand: the inputs (already compensated), each worker's stream; returns the decoded sum
// and leaves each worker's own decoded vector in `own`.
std::vector<float> thc_by_hand(const std::vector<std::vector<float>>& inputs, std::vector<Rng>& rngs,
                               const compression::RandomizedHadamard& rotation, unsigned bits,
                               std::vector<std::vector<float>>& own) {
  const std::size_t n = inputs.size(), d = inputs[0].size(), padded = rotation.padded();
  float largest = 0;
  for (const auto& x : inputs) {
    double squares = 0;
    for (const float v : x) squares += static_cast<double>(v) * v;
    largest = std::max(largest, static_cast<float>(std::sqrt(squares)));
  }
  const compression::ThcFrame frame = compression::thc_frame(largest, padded, 1e-4, bits);
  std::vector<std::uint32_t> sums(padded, 0), indices(padded);
  std::vector<float> rotated(padded), level(padded);
  own.assign(n, std::vector<float>(d));
  for (std::size_t i = 0; i < n; ++i) {
    rotation.forward(inputs[i], rotated);
    compression::thc_quantize(rotated, frame, rngs[i], indices);
    compression::thc_decode_sums(indices, 1, frame, level);
    rotation.inverse(level, own[i]);
    for (std::size_t c = 0; c < padded; ++c) sums[c] += indices[c];
  }
  compression::thc_decode_sums(sums, n, frame, level);
  std::vector<float> mean(d);
  rotation.inverse(level, mean);
  return mean;
}
}  // namespace

TEST_CASE("thc with error feedback quantizes g + e, e being what the worker's own indices missed") {
  const std::size_t n = 3, d = 20;
  Rng draw(5);
  std::vector<std::vector<float>> first(n, std::vector<float>(d)), second = first;
  for (auto* round : {&first, &second})
    for (auto& x : *round)
      for (float& v : x) v = static_cast<float>(draw.normal());
  auto run_two = [&](bool feedback) {
    const std::unique_ptr<compression::Compressor> fp32 = compression::make_compressor(R"({"kind": "none"})");
    json value = {{"kind", "thc"}, {"bits", 2}, {"error_feedback", feedback}}, resolved;
    Spec spec = Spec::of_family(value, "test", "$.algorithm.collective", resolved, protocols::collectives());
    const std::unique_ptr<protocols::Collective> collective = protocols::make_collective(
        spec, {n, d, fp32.get(), {}, &free_work, nullptr, "test: $.algorithm.compressor", {}});
    TwoRounds rounds(*collective, first, second);
    testing::CooperativeNetwork network(n);
    network.run(rounds);
    return rounds.outputs;
  };
  const compression::RandomizedHadamard rotation(d, 1);
  std::vector<Rng> rngs;
  for (std::size_t i = 0; i < n; ++i) rngs.emplace_back(i);
  std::vector<std::vector<float>> own;
  thc_by_hand(first, rngs, rotation, 2, own);
  std::vector<std::vector<float>> compensated = second;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t c = 0; c < d; ++c) compensated[i][c] = second[i][c] + (first[i][c] - own[i][c]);
  const std::vector<float> expected = thc_by_hand(compensated, rngs, rotation, 2, own);
  const auto with = run_two(true);
  for (std::size_t i = 0; i < n; ++i) {
    double worst = 0;
    for (std::size_t c = 0; c < d; ++c)
      worst = std::max(worst, static_cast<double>(std::abs(with[i][c] - expected[c])));
    CHECK(worst < 1e-5);
  }
  // Without it the second round quantizes g alone: another result.
  const auto without = run_two(false);
  double gap = 0;
  for (std::size_t c = 0; c < d; ++c)
    gap = std::max(gap, static_cast<double>(std::abs(without[0][c] - expected[c])));
  CHECK(gap > 1e-2);
}
