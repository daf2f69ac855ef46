#include "sim/config/time_profiles.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "common/regular_file.hpp"
#include "common/spec.hpp"

namespace sgdsim::sim {
namespace {

using ProfileFactory = std::function<Profile(Spec&, const std::string& base_dir)>;

keys::Registry<ProfileFactory>& profile_registry() {
  static keys::Registry<ProfileFactory> family(
      "time_profile", "kind",
      "A factor of simulated time multiplying a nominal value (a link's bandwidth or latency, a host's "
      "speed): 1 before its first step.");
  return family;
}

constexpr double min_factor = 1e-6, max_factor = 1e6;
// Periods and mean lengths of at least a microsecond: SimGrid handles every change of a profile as an event,
// and 1e-12 s stretches made a 0.01 s run need ~10^10 of them (hours, then bad_alloc).
constexpr double min_interval = 1e-6;

// (time, value) pairs: times ascending, values factors in [min_factor, max_factor].
std::vector<std::pair<double, double>> read_pairs(const nlohmann::json& value,
                                                  const std::function<void(const std::string&)>& fail) {
  if (!value.is_array() || value.empty()) fail("expected a non-empty array of [time, value] pairs");
  std::vector<std::pair<double, double>> pairs;
  for (const auto& pair : value) {
    if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_number())
      fail("expected [time, value] pairs of numbers, found " + pair.dump());
    const double t = pair[0].get<double>(), v = pair[1].get<double>();
    if (!std::isfinite(t) || t < 0 || (!pairs.empty() && t <= pairs.back().first))
      fail("times must be finite, >= 0 and increasing; found " + pair.dump());
    // A factor of 5e-324 would stop a link or host for good (and underflow SimGrid's solver).
    if (!std::isfinite(v) || !(v >= min_factor) || v > max_factor)
      fail("values must be factors in [1e-06, 1e+06]; found " + pair.dump());
    pairs.emplace_back(t, v);
  }
  return pairs;
}

void check_period(Spec& spec, const Profile& profile) {
  if (profile.period > 0 && profile.steps.back().first >= profile.period)
    spec.fail("period",
              "must exceed the last step's time (" + std::to_string(profile.steps.back().first) + " s)");
}

const bool registered_time_profiles =
    profile_registry().add(
        {"steps",
         "Steps [[time s, factor], ...]: from each time on, the factor; repeated every `period` (a periodic, "
         "e.g. diurnal, pattern) when period > 0.",
         {keys::any("steps", "[[time in s, factor in [1e-6, 1e6]], ...], times increasing.")
              .shaped(time_pairs_shape()),
          keys::duration("period", "Repeat the steps every period (0: once).")
              .fallback_to(0)
              .at_least(min_interval)},
         {},
         {nlohmann::json::parse(R"({"kind": "steps", "steps": [[0, 1], [5, 0.5]], "period": "10s"})")}},
        [](Spec& spec, const std::string&) {
          const nlohmann::json* steps = spec.peek("steps");
          if (!steps) spec.expected("steps", "a non-empty array of [time, factor] pairs");
          Profile profile;
          profile.steps = read_pairs(*steps, [&](const std::string& m) { spec.fail("steps", m); });
          spec.echo("steps", *steps);
          profile.period = spec.duration("period");
          check_period(spec, profile);
          return profile;
        }) &&
    profile_registry().add(
        {"trace",
         "Steps read from a text file of `time value` lines (seconds, factor; # starts a comment).",
         {keys::path("file", "The trace file, relative to the scenario's folder."),
          keys::duration("period", "Repeat the trace every period (0: once).")
              .fallback_to(0)
              .at_least(min_interval)},
         {}},
        [](Spec& spec, const std::string& base_dir) {
          const std::string name = spec.string("file");
          const std::filesystem::path path = std::filesystem::path(base_dir) / name;
          require_regular_file(path.string(), 64 << 20);
          std::ifstream in(path);
          if (!in) spec.fail("file", "cannot read " + path.string());
          nlohmann::json pairs = nlohmann::json::array();
          std::string line;
          for (int number = 1; std::getline(in, line); ++number) {
            if (const auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
            std::istringstream fields(line);
            double t = 0, v = 0;
            std::string rest;
            if (!(fields >> t)) {
              if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
              spec.fail("file", path.string() + ":" + std::to_string(number) + ": expected `time value`");
            }
            if (!(fields >> v) || (fields >> rest))
              spec.fail("file", path.string() + ":" + std::to_string(number) + ": expected `time value`");
            pairs.push_back({t, v});
          }
          Profile profile;
          profile.steps =
              read_pairs(pairs, [&](const std::string& m) { spec.fail("file", path.string() + ": " + m); });
          profile.period = spec.duration("period");
          check_period(spec, profile);
          return profile;
        }) &&
    profile_registry().add(
        {"random",
         "Random episodes (seeded): normal stretches (factor 1) of exponential length, mean `mean_normal`, "
         "alternate with episodes of factor `value`, exponential of mean `mean_episode` (or exactly that "
         "long "
         "with `episode: fixed`). E.g. on/off congestion, or \"slows 10x for 1 s at rate λ\": mean_normal "
         "1/λ, mean_episode 1 s, fixed, value 0.1.",
         {keys::duration("mean_normal", "Mean length of a normal stretch.").at_least(min_interval),
          keys::duration("mean_episode", "Mean (or exact) length of an episode.").at_least(min_interval),
          keys::choice("episode", {"exponential", "fixed"}, "How long episodes last.")
              .fallback_to("exponential"),
          keys::number("value", "The factor during an episode.").between(min_factor, max_factor)},
         {},
         {nlohmann::json::parse(
             R"({"kind": "random", "mean_normal": "10s", "mean_episode": "1s", "episode": "fixed", "value": 0.1})")}},
        [](Spec& spec, const std::string&) {
          Profile profile;
          profile.random = true;
          profile.mean_normal = spec.duration("mean_normal");
          profile.mean_episode = spec.duration("mean_episode");
          profile.fixed_episode = spec.string("episode") == "fixed";
          profile.episode_value = spec.number("value");
          if (!(profile.mean_normal > 0)) spec.fail("mean_normal", "must be > 0");
          if (!(profile.mean_episode > 0)) spec.fail("mean_episode", "must be > 0");
          return profile;
        });

}  // namespace

keys::Family& time_profiles() {
  return profile_registry();
}

const nlohmann::json& time_pairs_shape() {
  static const nlohmann::json shape = {
      {"type", "array"},
      {"minItems", 1},
      {"items", {{"type", "array"}, {"minItems", 2}, {"maxItems", 2}, {"items", {{"type", "number"}}}}}};
  return shape;
}

Profile read_time_profile(Spec& parent, const std::string& key, const std::string& base_dir,
                          std::uint64_t seed) {
  Spec spec = parent.variant(key);
  Profile profile =
      spec.in_context([&] { return profile_registry().factory(spec.kind_name())(spec, base_dir); });
  spec.finish();
  profile.stream_seed = seed;
  return profile;
}

}  // namespace sgdsim::sim
