#include "sim/dynamics.hpp"

#include <cmath>
#include <limits>

#include "common/rng.hpp"

namespace sgdsim::sim {

// One profile's own changes, in time order.
struct ProfileEvents::Part {
  explicit Part(Profile p)
      : profile(std::move(p)),
        rng(Rng::stream(profile.stream_seed, profile.stream_index, Purpose::dynamics)) {}

  // The next change of this part alone (a new value, or its first event), or nullopt. Events that repeat
  // the current value are skipped, and a part whose value can no longer change ends: a random profile with
  // episodes of factor 1, a periodic one whose values are all equal.
  std::optional<std::pair<double, double>> next() {
    if (profile.random) {
      if (map(profile.episode_value) == 1.0) return std::nullopt;
      // Normal stretches and episodes alternate from time 0 (normal first).
      const double mean = in_episode ? profile.mean_episode : profile.mean_normal;
      const bool fixed = in_episode && profile.fixed_episode;
      // Exponential by inversion on our own uniforms (deterministic across libraries).
      clock += fixed ? mean : -mean * std::log1p(-rng.uniform());
      in_episode = !in_episode;
      return std::make_pair(clock, map(in_episode ? profile.episode_value : 1.0));
    }
    // A whole period without a new value: the periods repeat it, so nothing changes again.
    for (std::size_t repeats = 0; repeats <= profile.steps.size(); ++repeats) {
      const auto step = next_step();
      if (!step) return std::nullopt;
      if (!emitted || step->second != *emitted) {
        emitted = step->second;
        return step;
      }
    }
    return std::nullopt;
  }
  // The next step as written (periods repeated), or nullopt after the last one.
  std::optional<std::pair<double, double>> next_step() {
    if (profile.steps.empty()) return std::nullopt;
    if (index == profile.steps.size()) {
      if (profile.period <= 0) return std::nullopt;
      index = 0;
      ++cycle;
    }
    const auto& [time, value] = profile.steps[index++];
    return std::make_pair(static_cast<double>(cycle) * profile.period + time, map(value));
  }
  double map(double value) const { return value == 0 && profile.zero_as > 0 ? profile.zero_as : value; }

  Profile profile;
  Rng rng;
  std::size_t index = 0, cycle = 0;
  double clock = 0;
  bool in_episode = false;
  std::optional<double> emitted;                     // steps: the value of the last change reported
  std::optional<std::pair<double, double>> pending;  // this part's next change, not yet applied
  double value = 1;
};

ProfileEvents::ProfileEvents(std::vector<Profile> parts) {
  for (auto& part : parts) {
    parts_.push_back(std::make_unique<Part>(std::move(part)));
    parts_.back()->pending = parts_.back()->next();
  }
}
ProfileEvents::~ProfileEvents() = default;
ProfileEvents::ProfileEvents(ProfileEvents&&) noexcept = default;
ProfileEvents& ProfileEvents::operator=(ProfileEvents&&) noexcept = default;

std::optional<std::pair<double, double>> ProfileEvents::next() {
  // Every part changes at each of its events, so the product stays put only where parts change at the same
  // instant and cancel (periodic profiles made to); this many such instants in a row is taken as a product
  // that no longer changes, rather than searched for ever.
  constexpr std::size_t max_unchanged = std::size_t{1} << 20;
  for (std::size_t unchanged = 0; unchanged < max_unchanged; ++unchanged) {
    double when = std::numeric_limits<double>::infinity();
    for (const auto& part : parts_)
      if (part->pending) when = std::min(when, part->pending->first);
    if (!std::isfinite(when)) return std::nullopt;
    // Apply every change at that time, then report the product if it changed.
    for (auto& part : parts_) {
      while (part->pending && part->pending->first == when) {
        part->value = part->pending->second;
        part->pending = part->next();
      }
    }
    double product = 1;
    for (const auto& part : parts_) product *= part->value;
    if (product != product_ || when == 0) {
      product_ = product;
      return std::make_pair(when, product);
    }
  }
  return std::nullopt;
}

std::vector<std::pair<double, double>> profile_until(const std::vector<Profile>& parts, double until,
                                                     std::size_t max_changes) {
  ProfileEvents events(parts);
  std::vector<std::pair<double, double>> out;
  while (out.size() <= max_changes) {
    const auto event = events.next();
    if (!event) break;
    if (event->first > until) break;
    if (!out.empty() && out.back().first == event->first)
      out.back().second = event->second;
    else
      out.push_back(*event);
  }
  if (out.empty() || out.front().first > 0) out.insert(out.begin(), {0.0, 1.0});
  return out;
}

std::size_t Dynamics::nodes_down(double time) const {
  std::size_t down = 0;
  for (const auto& state : node_state)
    if (!state.empty() && profile_until(state, time).back().second == 0) ++down;
  return down;
}

bool Dynamics::any() const {
  auto some = [](const std::vector<std::vector<Profile>>& v) {
    for (const auto& p : v)
      if (!p.empty()) return true;
    return false;
  };
  for (double f : node_speed)
    if (f != 1) return true;
  return some(link_bandwidth) || some(link_latency) || some(node_speed_profile) || has_failures() ||
         !background.empty();
}

bool Dynamics::has_failures() const {
  for (const auto* v : {&link_state, &node_state})
    for (const auto& p : *v)
      if (!p.empty()) return true;
  return false;
}

namespace {
const std::vector<Profile>& at(const std::vector<std::vector<Profile>>& v, std::size_t i) {
  static const std::vector<Profile> none;
  return i < v.size() ? v[i] : none;
}
void append(std::vector<Profile>& to, const std::vector<Profile>& from) {
  to.insert(to.end(), from.begin(), from.end());
}
}  // namespace

ResolvedLink resolved_link(const Dynamics& dynamics, std::size_t edge, std::size_t a, std::size_t b) {
  ResolvedLink link;
  append(link.bandwidth, at(dynamics.link_bandwidth, edge));
  append(link.latency, at(dynamics.link_latency, edge));
  append(link.state, at(dynamics.link_state, edge));
  // A node that is down takes its links down with it.
  append(link.state, at(dynamics.node_state, a));
  append(link.state, at(dynamics.node_state, b));
  return link;
}

std::vector<Profile> resolved_speed(const Dynamics& dynamics, std::size_t node) {
  std::vector<Profile> parts;
  if (node < dynamics.node_speed.size() && dynamics.node_speed[node] != 1) {
    Profile constant;
    constant.steps = {{0.0, dynamics.node_speed[node]}};
    parts.push_back(constant);
  }
  append(parts, at(dynamics.node_speed_profile, node));
  for (Profile state : at(dynamics.node_state, node)) {
    state.zero_as = stopped_speed_factor;
    parts.push_back(std::move(state));
  }
  return parts;
}

}  // namespace sgdsim::sim
