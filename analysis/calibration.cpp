#include "analysis/calibration.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/speed_keys.hpp"
#include "algorithms/learning/dataset.hpp"
#include "algorithms/learning/model.hpp"
#include "algorithms/protocols/prices.hpp"
#include "analysis/sweep_point.hpp"
#include "common/keys.hpp"
#include "common/rng.hpp"
#include "common/spec.hpp"
#include "scenarios/wiring/scenario.hpp"
#include "sim/config/device_profile.hpp"

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

// Encode and decode throughputs (coordinates/s) of one codec configuration on d Gaussian coordinates.
protocols::CodecSpeed codec_speed(const CalibrationOptions& options, const json& configuration,
                                  const std::vector<float>& values) {
  const std::size_t d = values.size();
  const auto compressor = compression::make_compressor(configuration.dump(), "calibration");
  Rng rng(2);
  compression::Bytes bytes;
  const double encode = median_seconds(options, [&] {
    bytes.clear();
    compressor->encode_into(values, rng, bytes);
  });
  std::vector<float> out(d);
  const double decode = median_seconds(options, [&] { compressor->decode_into(bytes, out); });
  report(options, fmt::format("  encode {:9.1f} M coordinates/s, decode {:9.1f} M coordinates/s  {}",
                              d / encode / 1e6, d / decode / 1e6, configuration.dump()));
  return {static_cast<double>(d) / encode, static_cast<double>(d) / decode};
}

// Every registered example of every compressor kind, resolved.
std::vector<json> registered_examples() {
  std::vector<json> out;
  for (const keys::Kind* kind : compression::compressors().kinds())
    for (const json& example : kind->examples)
      out.push_back(compression::resolved_configuration(example, "an example of " + kind->name));
  return out;
}

// A profile's codec prices as a list of priced configurations, whatever form its "codecs" has.
std::map<std::string, protocols::CodecPrice> profile_prices(const json& profile, const std::string& name) {
  auto prices = sim::read_device_profile(profile, name).configurations;
  for (auto& [priced, price] : prices)  // the entry's own source, without the profile's name
    if (price.source.rfind(name + ": ", 0) == 0) price.source.erase(0, name.size() + 2);
  return prices;
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
  return text;
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

std::vector<json> used_configurations(const std::string& file) {
  const json document = scenarios::load_document(file, {});
  // (scenario, origin, folder its relative paths resolve against)
  std::vector<std::tuple<json, std::string, std::string>> runs;
  if (document.is_object() && document.contains("base")) {
    const Sweep sweep = load_sweep(file);
    // Seeds and timing-only keys (bandwidths, profiles, ...) do not change the codecs a run uses.
    std::set<std::string> settings;
    for (const SweepPoint& point : expand(sweep)) {
      json learning = json::object();
      for (const auto& [path, value] : point.overrides.items())
        if (!keys::timing_only(scenarios::scenario_keys(), sweep.base, path)) learning[path] = value;
      if (settings.insert(learning.dump()).second)
        runs.emplace_back(point_scenario(sweep, point, sweep.sweep_dir),
                          file + ", point " + (point.label.empty() ? point.id : point.label),
                          sweep.sweep_dir.empty() ? "." : sweep.sweep_dir);
    }
  } else {
    const std::string folder = std::filesystem::path(file).parent_path().string();
    runs.emplace_back(document, file, folder.empty() ? "." : folder);
  }
  // Every kind gets a placeholder price, so that the scenario builds whatever the profile holds.
  json placeholder = json::object();
  for (const keys::Kind* kind : compression::compressors().kinds())
    placeholder[kind->name] = {{"encode", 1}, {"decode", 1}};
  std::vector<json> out;
  std::set<std::string> seen;
  for (auto& [scenario, origin, folder] : runs) {
    if (!scenario.is_object()) throw InputError(origin + ": expected a scenario object");
    scenario["compute"]["codecs"] = placeholder;
    const scenarios::Scenario built(scenario, origin, folder);
    for (const protocols::Price& price : built.network().prices->prices())
      if (price.unit == protocols::Unit::coordinates &&
          seen.insert(compression::priced_configuration(protocols::codec_configuration(price)).dump()).second)
        out.push_back(protocols::codec_configuration(price));
  }
  return out;
}

json calibrate(const CalibrationOptions& options) {
  report(options, fmt::format("calibrating: median of {} repetitions of at least {} s each, d = {}",
                              options.repetitions, options.min_seconds, options.dimension));
  std::vector<json> configurations;
  std::set<std::string> seen;
  const auto add = [&](json configuration) {
    if (seen.insert(compression::priced_configuration(configuration).dump()).second)
      configurations.push_back(std::move(configuration));
  };
  for (const std::string& file : options.scenarios)
    for (json& configuration : used_configurations(file)) add(std::move(configuration));
  if (options.scenarios.empty() || options.examples)
    for (json& configuration : registered_examples()) add(std::move(configuration));
  report(options, fmt::format("  {} codec configurations", configurations.size()));
  const std::vector<float> values = gaussian(options.dimension, 1);

  // The load factor: how much slower this machine runs now than when the reference was measured.
  double factor = 1;
  std::size_t ratios = 0;
  std::map<std::string, protocols::CodecPrice> reference;
  if (!options.reference.is_null()) {
    reference = profile_prices(options.reference, options.reference_name);
    report(options, fmt::format("  the load factor against {}: its {} codec configurations",
                                options.reference_name, reference.size()));
    double log_sum = 0;
    for (const auto& [priced, price] : reference) {
      const protocols::CodecSpeed measured = codec_speed(options, json::parse(priced), values);
      log_sum +=
          std::log(price.speed.encode / measured.encode) + std::log(price.speed.decode / measured.decode);
      ratios += 2;
    }
    if (ratios > 0) factor = std::exp(log_sum / static_cast<double>(ratios));
    report(options, fmt::format("  load factor {:.3f} (geometric mean of {} ratios)", factor, ratios));
  }
  std::string how = fmt::format(
      "measured by sgdsim calibrate on {} ({}): d = {}, the median of {} repetitions of at least {} s",
      machine_text(), today(), options.dimension, options.repetitions, options.min_seconds);
  if (ratios > 0)
    how += fmt::format(
        ", times the load factor {:.4f} (the geometric mean of {}'s / measured throughput over its {} "
        "figures, measured in the same run: the machine was shared)",
        factor, options.reference_name, ratios);

  json profile = options.into.is_null() ? json::object() : options.into;
  if (options.into.is_null()) {
    profile["description"] =
        "Throughputs of one core of this machine for a simulated node's work, measured by sgdsim calibrate.";
    profile["machine"] = machine_text();
    profile["command"] = fmt::format("sgdsim calibrate --dimension {} --repetitions {}", options.dimension,
                                     options.repetitions);
    profile["host_speed"] = model_speed(options) * factor;
    profile["memory_bandwidth"] = memory_bandwidth(options) * factor;
  }
  // The profile's entries as a list (an older profile's table by kind becomes its first examples' entries),
  // then the measured ones replace or join them.
  std::map<std::string, json> entries;
  if (!options.into.is_null())
    for (const auto& [priced, price] : profile_prices(options.into, "the profile merged into"))
      entries[priced] = {{"codec", json::parse(priced)},
                         {"encode", price.speed.encode},
                         {"decode", price.speed.decode},
                         {"source", price.source}};
  for (const json& configuration : configurations) {
    const std::string priced = compression::priced_configuration(configuration).dump();
    if (const auto anchor = reference.find(priced); anchor != reference.end()) {
      // The reference's own figure: the load factor is measured against it.
      entries[priced] = {{"codec", json::parse(priced)},
                         {"encode", anchor->second.speed.encode},
                         {"decode", anchor->second.speed.decode},
                         {"source", anchor->second.source}};
      continue;
    }
    const protocols::CodecSpeed measured = codec_speed(options, configuration, values);
    entries[priced] = {{"codec", json::parse(priced)},
                       {"encode", measured.encode * factor},
                       {"decode", measured.decode * factor},
                       {"source", how}};
  }
  json codecs = json::array();
  for (auto& [priced, entry] : entries) codecs.push_back(std::move(entry));
  profile["codecs"] = std::move(codecs);
  return profile;
}

}  // namespace sgdsim::analysis
