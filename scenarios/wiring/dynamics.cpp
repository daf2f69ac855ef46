#include "scenarios/wiring/dynamics.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "common/regular_file.hpp"
#include "common/rng.hpp"
#include "common/spec.hpp"

namespace sgdsim::scenarios {
namespace {

using ProfileFactory = std::function<sim::Profile(Spec&, const std::string& base_dir)>;

keys::Registry<ProfileFactory>& profile_registry() {
  static keys::Registry<ProfileFactory> family(
      "time_profile", "kind",
      "A factor of simulated time multiplying a nominal value (a link's bandwidth or latency, a host's "
      "speed): 1 before its first step.");
  return family;
}

// Random streams of the dynamics: one per (category, entry, element), so that adding an entry or a node
// never changes another's draws.
std::uint64_t stream_index(std::uint64_t category, std::size_t entry, std::size_t element) {
  return (category << 48) | (static_cast<std::uint64_t>(entry) << 32) | element;
}
enum Category : std::uint64_t {
  link_bandwidth = 1,
  link_latency,
  link_state,
  node_profile,
  node_state,
  flow,
  speed
};

// (time, value) pairs: times ascending, values finite and > 0 (or 0/1 for states).
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
    if (!std::isfinite(v) || !(v > 0) || v > 1e6)
      fail("values must be factors in (0, 1e6]; found " + pair.dump());
    pairs.emplace_back(t, v);
  }
  return pairs;
}

void check_period(Spec& spec, const sim::Profile& profile) {
  if (profile.period > 0 && profile.steps.back().first >= profile.period)
    spec.fail("period",
              "must exceed the last step's time (" + std::to_string(profile.steps.back().first) + " s)");
}

const nlohmann::json pairs_shape = {
    {"type", "array"},
    {"minItems", 1},
    {"items", {{"type", "array"}, {"minItems", 2}, {"maxItems", 2}, {"items", {{"type", "number"}}}}}};

const bool registered =
    profile_registry().add(
        {"steps",
         "Steps [[time s, factor], ...]: from each time on, the factor; repeated every `period` (a periodic, "
         "e.g. diurnal, pattern) when period > 0.",
         {keys::any("steps", "[[time in s, factor > 0], ...], times increasing.").shaped(pairs_shape),
          keys::duration("period", "Repeat the steps every period (0: once).").fallback_to(0)},
         {},
         {nlohmann::json::parse(R"({"kind": "steps", "steps": [[0, 1], [5, 0.5]], "period": 10})")}},
        [](Spec& spec, const std::string&) {
          sim::Profile profile;
          profile.steps =
              read_pairs(*spec.peek("steps"), [&](const std::string& m) { spec.fail("steps", m); });
          spec.echo("steps", *spec.peek("steps"));
          profile.period = spec.duration("period");
          check_period(spec, profile);
          return profile;
        }) &&
    profile_registry().add(
        {"trace",
         "Steps read from a text file of `time value` lines (seconds, factor; # starts a comment).",
         {keys::path("file", "The trace file, relative to the scenario's folder."),
          keys::duration("period", "Repeat the trace every period (0: once).").fallback_to(0)},
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
          sim::Profile profile;
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
         {keys::duration("mean_normal", "Mean length of a normal stretch."),
          keys::duration("mean_episode", "Mean (or exact) length of an episode."),
          keys::choice("episode", {"exponential", "fixed"}, "How long episodes last.")
              .fallback_to("exponential"),
          keys::number("value", "The factor during an episode.").above(0).at_most(1e6)},
         {},
         {nlohmann::json::parse(
             R"({"kind": "random", "mean_normal": 10, "mean_episode": 1, "episode": "fixed", "value": 0.1})")}},
        [](Spec& spec, const std::string&) {
          sim::Profile profile;
          profile.random = true;
          profile.mean_normal = spec.duration("mean_normal");
          profile.mean_episode = spec.duration("mean_episode");
          profile.fixed_episode = spec.string("episode") == "fixed";
          profile.episode_value = spec.number("value");
          if (!(profile.mean_normal > 0)) spec.fail("mean_normal", "must be > 0");
          if (!(profile.mean_episode > 0)) spec.fail("mean_episode", "must be > 0");
          return profile;
        });

sim::Profile read_profile(Spec& parent, const std::string& key, const std::string& base_dir,
                          std::uint64_t seed) {
  Spec spec = parent.variant(key);
  sim::Profile profile =
      spec.in_context([&] { return profile_registry().factory(spec.kind_name())(spec, base_dir); });
  spec.finish();
  profile.stream_seed = seed;
  return profile;
}

// A failure entry's state profile: explicit [down, up] intervals or random with MTTF/MTTR.
sim::Profile read_failure(Spec& spec, std::uint64_t seed) {
  sim::Profile profile;
  profile.stream_seed = seed;
  const bool intervals = spec.has("down");
  if (intervals == (spec.has("mttf") || spec.has("mttr")))
    spec.fail("down", "give either \"down\": [[t_down, t_up], ...] or both \"mttf\" and \"mttr\"");
  if (intervals) {
    const nlohmann::json& down = *spec.peek("down");
    spec.echo("down", down);
    if (!down.is_array() || down.empty())
      spec.fail("down", "expected a non-empty array of [t_down, t_up] pairs");
    double last = -1;
    for (const auto& pair : down) {
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_number())
        spec.fail("down", "expected [t_down, t_up] pairs of numbers (seconds), found " + pair.dump());
      const double t1 = pair[0].get<double>(), t2 = pair[1].get<double>();
      if (!std::isfinite(t1) || !std::isfinite(t2) || t1 < 0 || t2 <= t1 || t1 <= last)
        spec.fail("down", "intervals must be finite, 0 <= t_down < t_up, increasing and disjoint; found " +
                              pair.dump());
      profile.steps.emplace_back(t1, 0.0);
      profile.steps.emplace_back(t2, 1.0);
      last = t2;
    }
    return profile;
  }
  if (!spec.has("mttf") || !spec.has("mttr")) spec.fail("mttf", "give both \"mttf\" and \"mttr\"");
  profile.random = true;
  profile.mean_normal = spec.duration("mttf");
  profile.mean_episode = spec.duration("mttr");
  profile.episode_value = 0;
  if (!(profile.mean_normal > 0)) spec.fail("mttf", "must be > 0");
  if (!(profile.mean_episode > 0)) spec.fail("mttr", "must be > 0");
  return profile;
}

std::vector<keys::Key> failure_keys() {
  const nlohmann::json intervals = pairs_shape;
  return {keys::any("down", "[[t_down, t_up], ...] in seconds: down from t_down, up again at t_up.")
              .shaped(intervals)
              .may_be_absent(),
          keys::duration("mttf", "Mean time to failure (exponential), with mttr: random failures.")
              .may_be_absent(),
          keys::duration("mttr", "Mean time to repair (exponential).").may_be_absent()};
}

keys::Key edge_key() {
  return keys::integers("edge", "One edge [a, b] (absent with node: every link).")
      .at_least(0)
      .items(2, 2)
      .may_be_absent();
}
keys::Key node_key(const std::string& help) {
  return keys::integer("node", help).at_least(0).may_be_absent();
}

const keys::Object& link_dynamics_object() {
  static const keys::Object object{
      "link_dynamics",
      "Profiles of the bandwidth and latency of one edge, of every edge of one node, or (neither given) of "
      "every edge; factors of each link's nominal value. Entries multiply.",
      {edge_key(), node_key("Every edge of this node."),
       keys::variant("bandwidth", profiles(), "Factor of the bandwidth over time.").may_be_absent(),
       keys::variant("latency", profiles(), "Factor of the latency over time.").may_be_absent()}};
  return object;
}

const keys::Object& link_failure_object() {
  static const keys::Object object = [] {
    keys::Object o{"link_failure",
                   "Failures of one edge, of every edge of one node, or (neither given) of every edge, each "
                   "with its own random draws. A message on a link that is down is lost.",
                   {edge_key(), node_key("Every edge of this node.")}};
    for (auto& key : failure_keys()) o.keys.push_back(key);
    return o;
  }();
  return object;
}

const keys::Object& node_failure_object() {
  static const keys::Object object = [] {
    keys::Object o{"node_failure",
                   "Failures of one node or (absent) of every node, each with its own random draws. A node "
                   "that is down computes nothing and all its links are down; it resumes where it stopped.",
                   {node_key("The node (absent: every node).")}};
    for (auto& key : failure_keys()) o.keys.push_back(key);
    return o;
  }();
  return object;
}

const keys::Object& background_object() {
  static const keys::Object object{
      "background",
      "Competing traffic from one node to another (routed like messages): a constant flow (`rate`, or "
      "`fraction` of the bandwidth of the edge between adjacent nodes) or bulk transfers of `size` bytes "
      "arriving at `arrivals` per second (Poisson, seeded).",
      {keys::integer("from", "Sending node.").at_least(0), keys::integer("to", "Receiving node.").at_least(0),
       keys::number("fraction", "A constant flow capped at this fraction of the edge's bandwidth.")
           .above(0)
           .at_most(1)
           .may_be_absent(),
       keys::bandwidth("rate", "A constant flow capped at this rate.").may_be_absent(),
       keys::integer("size", "Bytes of one bulk transfer.").at_least(1).in_unit("bytes").may_be_absent(),
       keys::number("arrivals", "Bulk transfers per second.")
           .above(0)
           .at_most(1e6)
           .in_unit("1/s")
           .may_be_absent()}};
  return object;
}

const keys::Object& straggler_object() {
  static const keys::Object object{
      "straggler",
      "A slower node, or (node absent) a rule for every node: its speed divided by `slowdown`, times a "
      "`profile` over time (each node its own random draws).",
      {node_key("The node (absent: every node)."),
       keys::number("slowdown", "Speed divided by this (4: four times slower).")
           .fallback_to(1.0)
           .at_least(1)
           .at_most(1e6),
       keys::variant("profile", profiles(), "Factor of the speed over time.").may_be_absent()}};
  return object;
}

const keys::Object& speed_spread_object() {
  static const keys::Object object{
      "speed_spread",
      "Heterogeneous hardware: each node's speed is multiplied by a factor drawn once from the seed.",
      {keys::choice("distribution", {"none", "uniform", "lognormal"},
                    "\"uniform\": factor uniform in [1 - spread, 1 + spread]; \"lognormal\": exp(spread · "
                    "N(0, 1)).")
           .fallback_to("none"),
       keys::number("spread", "The spread (uniform: below 1).").fallback_to(0.0).between(0, 5)}};
  return object;
}

// The edges an entry selects: one edge, every edge of a node, or every edge.
std::vector<std::size_t> selected_edges(Spec& entry, const topology::Topology& topology) {
  const auto max_node = static_cast<std::int64_t>(topology.nodes) - 1;
  std::vector<std::size_t> out;
  if (entry.has("edge") && entry.has("node")) entry.fail("edge", "give at most one of \"edge\" and \"node\"");
  if (entry.has("edge")) {
    auto ends = entry.integers("edge");
    for (auto end : ends)
      if (end > max_node)
        entry.expected("edge", "a pair of node ids in [0, " + std::to_string(max_node) + "]");
    if (ends[0] > ends[1]) std::swap(ends[0], ends[1]);
    for (std::size_t k = 0; k < topology.edges.size(); ++k)
      if (topology.edges[k].a == static_cast<std::size_t>(ends[0]) &&
          topology.edges[k].b == static_cast<std::size_t>(ends[1]))
        out.push_back(k);
    if (out.empty())
      entry.fail("edge", "there is no edge between nodes " + std::to_string(ends[0]) + " and " +
                             std::to_string(ends[1]));
    return out;
  }
  std::optional<std::size_t> node;
  if (entry.has("node")) {
    node = static_cast<std::size_t>(entry.integer("node"));
    if (*node > static_cast<std::size_t>(max_node))
      entry.expected("node", "a node id in [0, " + std::to_string(max_node) + "]");
  }
  for (std::size_t k = 0; k < topology.edges.size(); ++k)
    if (!node || topology.edges[k].a == *node || topology.edges[k].b == *node) out.push_back(k);
  return out;
}

std::vector<std::size_t> selected_nodes(Spec& entry, std::size_t nodes) {
  std::vector<std::size_t> out;
  if (entry.has("node")) {
    const auto node = static_cast<std::size_t>(entry.integer("node"));
    if (node >= nodes) entry.expected("node", "a node id in [0, " + std::to_string(nodes - 1) + "]");
    out.push_back(node);
  } else {
    for (std::size_t i = 0; i < nodes; ++i) out.push_back(i);
  }
  return out;
}

// Adds `profile` to `element`'s list, with its own random stream.
void add(std::vector<std::vector<sim::Profile>>& lists, std::size_t size, std::size_t element,
         sim::Profile profile, Category category, std::size_t entry) {
  lists.resize(size);
  profile.stream_index = stream_index(category, entry, element);
  lists[element].push_back(std::move(profile));
}

// The "failures" entries of `parent`: each selected element (edge or node) gets the entry's state profile.
void read_failures(Spec& parent, std::uint64_t seed, std::vector<std::vector<sim::Profile>>& lists,
                   std::size_t size, Category category,
                   const std::function<std::vector<std::size_t>(Spec&)>& select) {
  std::vector<Spec> entries = parent.objects("failures");
  for (std::size_t e = 0; e < entries.size(); ++e) {
    Spec& entry = entries[e];
    const auto selected = select(entry);
    const sim::Profile profile = read_failure(entry, seed);
    for (std::size_t element : selected) add(lists, size, element, profile, category, e);
    entry.finish();
  }
}

}  // namespace

keys::Family& profiles() {
  return profile_registry();
}

std::vector<keys::Key> network_dynamics_keys() {
  return {
      keys::objects("dynamics", link_dynamics_object(), "Time-varying link bandwidth and latency.")
          .fallback_to(nlohmann::json::array()),
      keys::objects("failures", link_failure_object(), "Link failures.").fallback_to(nlohmann::json::array()),
      keys::objects("background", background_object(), "Competing traffic.")
          .fallback_to(nlohmann::json::array()),
      keys::duration("receive_timeout",
                     "Simulated seconds a receive waits before giving up (a lost message, a node or link "
                     "down); 0: forever. Must be > 0 when anything can fail.")
          .fallback_to(0)};
}

std::vector<keys::Key> compute_dynamics_keys() {
  return {keys::object("speed_spread", speed_spread_object(), "Per-node speed factors drawn from the seed."),
          keys::objects("stragglers", straggler_object(), "Slower nodes and speed profiles.")
              .fallback_to(nlohmann::json::array()),
          keys::objects("failures", node_failure_object(), "Node failures.")
              .fallback_to(nlohmann::json::array())};
}

void read_network_dynamics(Spec& network, const topology::Topology& topology, std::uint64_t seed,
                           const std::string& base_dir, sim::Dynamics& dynamics) {
  const std::size_t edges = topology.edges.size();
  std::vector<Spec> entries = network.objects("dynamics");
  for (std::size_t e = 0; e < entries.size(); ++e) {
    Spec& entry = entries[e];
    const auto selected = selected_edges(entry, topology);
    if (!entry.has("bandwidth") && !entry.has("latency"))
      entry.fail("bandwidth", "an entry needs \"bandwidth\" and/or \"latency\"");
    if (entry.has("bandwidth")) {
      const sim::Profile profile = read_profile(entry, "bandwidth", base_dir, seed);
      for (std::size_t k : selected) add(dynamics.link_bandwidth, edges, k, profile, link_bandwidth, e);
    }
    if (entry.has("latency")) {
      const sim::Profile profile = read_profile(entry, "latency", base_dir, seed);
      for (std::size_t k : selected) add(dynamics.link_latency, edges, k, profile, link_latency, e);
    }
    entry.finish();
  }
  read_failures(network, seed, dynamics.link_state, edges, link_state,
                [&](Spec& entry) { return selected_edges(entry, topology); });
  entries = network.objects("background");
  for (std::size_t e = 0; e < entries.size(); ++e) {
    Spec& entry = entries[e];
    sim::BackgroundFlow flow;
    flow.from = static_cast<std::size_t>(entry.integer("from"));
    flow.to = static_cast<std::size_t>(entry.integer("to"));
    if (flow.from >= topology.nodes)
      entry.expected("from", "a node id below " + std::to_string(topology.nodes));
    if (flow.to >= topology.nodes || flow.to == flow.from)
      entry.expected("to", "a node id below " + std::to_string(topology.nodes) + " other than \"from\"");
    const int ways =
        int(entry.has("fraction")) + int(entry.has("rate")) + int(entry.has("size") || entry.has("arrivals"));
    if (ways != 1)
      entry.fail("rate", "give exactly one of \"fraction\", \"rate\", or \"size\" with \"arrivals\"");
    if (entry.has("fraction")) {
      const double fraction = entry.number("fraction");
      const auto a = std::min(flow.from, flow.to), b = std::max(flow.from, flow.to);
      const topology::Edge* edge = nullptr;
      for (const auto& candidate : topology.edges)
        if (candidate.a == a && candidate.b == b) edge = &candidate;
      if (!edge)
        entry.fail("fraction", "needs \"from\" and \"to\" adjacent (the edge whose bandwidth it takes)");
      flow.rate = fraction * edge->link.bandwidth;
    } else if (entry.has("rate")) {
      flow.rate = entry.bandwidth("rate");
    } else {
      if (!entry.has("size") || !entry.has("arrivals"))
        entry.fail("size", "bulk transfers need both \"size\" and \"arrivals\"");
      flow.size = static_cast<double>(entry.integer("size"));
      flow.arrivals = entry.number("arrivals");
    }
    flow.stream_seed = seed;
    flow.stream_index = stream_index(Category::flow, e, 0);
    entry.finish();
    dynamics.background.push_back(flow);
  }
  dynamics.receive_timeout = network.duration("receive_timeout");
}

void read_compute_dynamics(Spec& compute, std::size_t nodes, std::uint64_t seed, const std::string& base_dir,
                           sim::Dynamics& dynamics) {
  {
    Spec spread = compute.object("speed_spread");
    const std::string distribution = spread.string("distribution");
    const double s = spread.number("spread");
    if (distribution == "uniform" && s >= 1) spread.fail("spread", "must be below 1 for \"uniform\"");
    spread.finish();
    if (distribution != "none" && s > 0) {
      dynamics.node_speed.assign(nodes, 1.0);
      for (std::size_t i = 0; i < nodes; ++i) {
        Rng rng = Rng::stream(seed, stream_index(Category::speed, 0, i), Purpose::dynamics);
        dynamics.node_speed[i] =
            distribution == "uniform" ? 1 + s * (2 * rng.uniform() - 1) : std::exp(s * rng.normal());
      }
    }
  }
  std::vector<Spec> entries = compute.objects("stragglers");
  for (std::size_t e = 0; e < entries.size(); ++e) {
    Spec& entry = entries[e];
    const auto selected = selected_nodes(entry, nodes);
    const double slowdown = entry.number("slowdown");
    if (slowdown != 1) {
      if (dynamics.node_speed.empty()) dynamics.node_speed.assign(nodes, 1.0);
      for (std::size_t i : selected) dynamics.node_speed[i] /= slowdown;
    }
    if (entry.has("profile")) {
      const sim::Profile profile = read_profile(entry, "profile", base_dir, seed);
      for (std::size_t i : selected) add(dynamics.node_speed_profile, nodes, i, profile, node_profile, e);
    }
    entry.finish();
  }
  read_failures(compute, seed, dynamics.node_state, nodes, node_state,
                [&](Spec& entry) { return selected_nodes(entry, nodes); });
}

}  // namespace sgdsim::scenarios
