#include "analysis/calibration.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/learning/dataset.hpp"
#include "algorithms/learning/model.hpp"
#include "common/keys.hpp"
#include "common/rng.hpp"
#include "common/spec.hpp"

namespace sgdsim::analysis {
using nlohmann::json;

namespace {

using Clock = std::chrono::steady_clock;

// Median over repetitions of the seconds one call of `operation` takes; each repetition repeats it until
// min_seconds have passed, so that short operations are timed over many calls.
double median_seconds(const CalibrationOptions& options, const std::function<void()>& operation) {
  operation();  // warm caches and lazy allocations
  std::vector<double> per_call;
  for (int r = 0; r < options.repetitions; ++r) {
    std::size_t calls = 0;
    const auto start = Clock::now();
    double elapsed = 0;
    do {
      operation();
      ++calls;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < options.min_seconds);
    per_call.push_back(elapsed / static_cast<double>(calls));
  }
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

std::vector<float> gaussian(std::size_t d, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(d);
  for (float& x : v) x = static_cast<float>(rng.normal());
  return v;
}

void report(const CalibrationOptions& options, const std::string& line) {
  if (!options.progress) return;
  std::fputs((line + "\n").c_str(), options.progress);
  std::fflush(options.progress);
}

json codec_speeds(const CalibrationOptions& options) {
  const std::size_t d = options.dimension;
  const std::vector<float> values = gaussian(d, 1);
  json codecs = json::object();
  for (const keys::Kind* kind : compression::compressors().kinds()) {
    if (kind->examples.empty()) continue;
    const auto compressor = compression::make_compressor(kind->examples.front().dump(), kind->name);
    Rng rng(2);
    compression::Bytes bytes;
    const double encode = median_seconds(options, [&] {
      bytes.clear();
      compressor->encode_into(values, rng, bytes);
    });
    std::vector<float> out(d);
    const double decode = median_seconds(options, [&] { compressor->decode_into(bytes, out); });
    codecs[kind->name] = {{"encode", static_cast<double>(d) / encode},
                          {"decode", static_cast<double>(d) / decode}};
    report(options,
           fmt::format("  {:<10} encode {:8.1f} M coordinates/s, decode {:8.1f} M coordinates/s  ({})",
                       kind->name, d / encode / 1e6, d / decode / 1e6, kind->examples.front().dump()));
  }
  return codecs;
}

// y += a x over d floats: 3 d floats read or written per call.
double memory_bandwidth(const CalibrationOptions& options) {
  const std::size_t d = options.dimension;
  std::vector<float> x = gaussian(d, 3), y = gaussian(d, 4);
  const double seconds = median_seconds(options, [&] {
    for (std::size_t i = 0; i < d; ++i) y[i] += 1e-3f * x[i];
  });
  const double bandwidth = 3.0 * sizeof(float) * static_cast<double>(d) / seconds;
  report(options, fmt::format("  vector arithmetic: {:.2f} GB/s (y += a x, d = {})", bandwidth / 1e9, d));
  return bandwidth;
}

// The softmax model's minibatch gradient on Fashion-MNIST-shaped data (784 features, 10 classes, batch 32):
// its analytic flops over its time.
double model_speed(const CalibrationOptions& options) {
  learning::Dataset data;
  const std::size_t samples = 1024;
  data.features.resize(static_cast<Eigen::Index>(samples), 784);
  Rng rng(5);
  for (Eigen::Index r = 0; r < data.features.rows(); ++r)
    for (Eigen::Index c = 0; c < data.features.cols(); ++c)
      data.features(r, c) = static_cast<float>(rng.uniform());
  data.classes = 10;
  for (std::size_t i = 0; i < samples; ++i) data.labels.push_back(static_cast<std::int32_t>(i % 10));
  const json model_json = {{"kind", "softmax"}};
  json resolved;
  Spec spec = Spec::of_family(model_json, "calibration", "$.model", resolved, learning::models());
  const auto model = learning::make_model(spec, data);
  std::vector<float> params(model->dimension()), gradient(model->dimension());
  model->initialize(params, rng);
  std::vector<std::size_t> batch(32);
  std::size_t next = 0;
  const double seconds = median_seconds(options, [&] {
    for (auto& index : batch) index = next++ % samples;
    model->loss_and_gradient(params, data, batch, gradient);
  });
  const double speed = model->flops_per_sample() * static_cast<double>(batch.size()) / seconds;
  report(options,
         fmt::format("  model math: {:.2f} Gflop/s (softmax gradient, 784 features, 10 classes, batch 32)",
                     speed / 1e9));
  return speed;
}

std::string machine_text() {
  utsname name{};
  uname(&name);
  return fmt::format("{} {}, {} cores online", name.sysname, name.machine, sysconf(_SC_NPROCESSORS_ONLN));
}

}  // namespace

json calibrate(const CalibrationOptions& options) {
  report(options, fmt::format("calibrating: median of {} repetitions of at least {} s each, d = {}",
                              options.repetitions, options.min_seconds, options.dimension));
  json profile;
  profile["description"] =
      "Throughputs of one core of this machine for a simulated node's work, measured by sgdsim calibrate.";
  profile["machine"] = machine_text();
  profile["command"] =
      fmt::format("sgdsim calibrate --dimension {} --repetitions {}", options.dimension, options.repetitions);
  profile["host_speed"] = model_speed(options);
  profile["memory_bandwidth"] = memory_bandwidth(options);
  profile["codecs"] = codec_speeds(options);
  return profile;
}

}  // namespace sgdsim::analysis
