// Encode and decode throughput of every compressor and coding at d = 2^20, in coordinates per second
// (Google Benchmark's items_per_second), beside a memcpy of the same float32 input as the roofline and the
// random generator alone (the floor of every stochastic quantizer: its stream is sequential). Small-d cases
// (d = 2000) measure the per-call cost the ChocoSGD-sized workloads pay. The label names the instruction
// set the vector kernels ran on.
// Run: build/bench/bench_compression --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/simd.hpp"
#include "common/keys.hpp"

namespace {

using sgdsim::Rng;
using namespace sgdsim::compression;

constexpr std::size_t dimension = std::size_t{1} << 20;

const std::vector<float>& input() {
  static const std::vector<float> v = [] {
    Rng rng(2024);
    std::vector<float> values(dimension);
    for (auto& x : values) x = static_cast<float>(rng.normal());
    return values;
  }();
  return v;
}

// The first 2000 coordinates: the ChocoSGD convex workload's dimension.
std::span<const float> input(std::size_t d) {
  return std::span<const float>(input()).first(d);
}

void random_words(benchmark::State& state) {
  Rng rng(1);
  std::vector<std::uint64_t> words(dimension / 2);  // one word per two coordinates, as the quantizers draw
  for (auto _ : state) {
    Rng local = rng;
    for (auto& word : words) word = local();
    rng = local;
    benchmark::DoNotOptimize(words.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * dimension));
}

void memcpy_roofline(benchmark::State& state) {
  const auto& v = input();
  std::vector<float> out(v.size());
  for (auto _ : state) {
    std::memcpy(out.data(), v.data(), v.size() * sizeof(float));
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * v.size()));
}

void encode(benchmark::State& state, const std::string& json, std::size_t d) {
  const auto compressor = make_compressor(json);
  const auto v = input(d);
  Rng rng(1);
  Bytes bytes;
  for (auto _ : state) {
    bytes.clear();  // keeps the capacity, as the simulator's send buffers do
    compressor->encode_into(v, rng, bytes);
    benchmark::DoNotOptimize(bytes.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * v.size()));
  state.counters["bits_per_coordinate"] =
      8.0 * static_cast<double>(bytes.size()) / static_cast<double>(v.size());
  state.SetLabel(sgdsim::compression::simd::instruction_set());
}

void decode(benchmark::State& state, const std::string& json, std::size_t d) {
  const auto compressor = make_compressor(json);
  const auto v = input(d);
  Rng rng(1);
  const Bytes bytes = compressor->encode(v, rng);
  std::vector<float> out(v.size());
  for (auto _ : state) {
    compressor->decode_into(bytes, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * v.size()));
}

const std::vector<std::pair<std::string, std::string>> named = {
    {"none", R"({"kind": "none"})"},
    {"qsgd_s16_fixed", R"({"kind": "qsgd", "coding": "fixed"})"},
    {"qsgd_s16_elias", R"({"kind": "qsgd"})"},
    {"qsgd_s4_elias", R"({"kind": "qsgd", "levels": 4})"},
    {"qsgd_s1_elias", R"({"kind": "qsgd", "levels": 1})"},
    {"qsgd_s16_elias_gamma", R"({"kind": "qsgd", "elias": "gamma"})"},
    {"qsgdinf_s16_fixed", R"({"kind": "qsgdinf", "coding": "fixed"})"},
    {"qsgdinf_s16_elias", R"({"kind": "qsgdinf"})"},
    {"nuqsgd_s7_fixed", R"({"kind": "nuqsgd", "coding": "fixed"})"},
    {"nuqsgd_s7_elias", R"({"kind": "nuqsgd"})"},
    {"nuqsgd_code_b4_fixed", R"({"kind": "nuqsgd", "table": "code", "bits": 4})"},
    {"qsgd_code_b4_fixed", R"({"kind": "qsgd", "table": "code", "bits": 4})"},
    {"topk_1pct", R"({"kind": "topk", "fraction": 0.01})"},
    {"randk_1pct", R"({"kind": "randk", "fraction": 0.01})"},
    {"sign", R"({"kind": "sign"})"},
    {"topk_5pct_qsgd",
     R"({"kind": "compose", "stages": [{"kind": "topk", "fraction": 0.05}, {"kind": "qsgd"}]})"},
    {"signtopk_1pct",
     R"({"kind": "compose", "stages": [{"kind": "topk", "fraction": 0.01}, {"kind": "sign"}]})"},
};

// At d = 2000 (k = 20 is top-1 %).
const std::vector<std::pair<std::string, std::string>> small = {
    {"topk_k20", R"({"kind": "topk", "k": 20})"},
    {"randk_k20", R"({"kind": "randk", "k": 20})"},
    {"qsgd_s16_elias", R"({"kind": "qsgd"})"},
};

// Registered from main, after static initialisation has registered every compressor kind.
void register_benchmarks() {
  benchmark::RegisterBenchmark("memcpy_f32", memcpy_roofline)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("rng_words", random_words)->Unit(benchmark::kMillisecond);
  for (const auto& [name, json] : named) {
    benchmark::RegisterBenchmark(("encode/" + name).c_str(), encode, json, dimension)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("decode/" + name).c_str(), decode, json, dimension)
        ->Unit(benchmark::kMillisecond);
  }
  for (const auto& [name, json] : small) {
    benchmark::RegisterBenchmark(("encode_d2000/" + name).c_str(), encode, json, std::size_t{2000})
        ->Unit(benchmark::kMicrosecond);
  }
  // Every example of every registered kind, so that a new compressor is timed without being listed here.
  for (const sgdsim::keys::Kind* kind : compressors().kinds()) {
    for (std::size_t i = 0; i < kind->examples.size(); ++i) {
      const std::string name = "kind/" + kind->name + "-" + std::to_string(i);
      const std::string json = kind->examples[i].dump();
      benchmark::RegisterBenchmark(("encode/" + name).c_str(), encode, json, dimension)
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("decode/" + name).c_str(), decode, json, dimension)
          ->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
