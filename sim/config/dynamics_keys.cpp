#include "sim/config/dynamics_keys.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

#include "common/rng.hpp"
#include "common/spec.hpp"
#include "sim/config/time_profiles.hpp"

namespace sgdsim::sim {
namespace {

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

// A failure entry's state profile: explicit [down, up] intervals or random with MTTF/MTTR.
Profile read_failure(Spec& spec, std::uint64_t seed) {
  Profile profile;
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
  return {keys::any("down", "[[t_down, t_up], ...] in seconds: down from t_down, up again at t_up.")
              .shaped(time_pairs_shape())
              .may_be_absent(),
          // At least a microsecond, as the time profiles' periods and means (time_profiles.cpp).
          keys::duration("mttf", "Mean time to failure (exponential), with mttr: random failures.")
              .at_least(1e-6)
              .may_be_absent(),
          keys::duration("mttr", "Mean time to repair (exponential).").at_least(1e-6).may_be_absent()};
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
       keys::variant("bandwidth", time_profiles(), "Factor of the bandwidth over time.").may_be_absent(),
       keys::variant("latency", time_profiles(), "Factor of the latency over time.").may_be_absent()}};
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
       keys::variant("profile", time_profiles(), "Factor of the speed over time.").may_be_absent()}};
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
    const auto ends = entry.integers("edge");
    for (auto end : ends)
      if (end > max_node)
        entry.expected("edge", "a pair of node ids in [0, " + std::to_string(max_node) + "]");
    const auto edge =
        topology::edge_index(topology, static_cast<std::size_t>(ends[0]), static_cast<std::size_t>(ends[1]));
    if (!edge)
      entry.fail("edge", "there is no edge between nodes " + std::to_string(std::min(ends[0], ends[1])) +
                             " and " + std::to_string(std::max(ends[0], ends[1])));
    return {*edge};
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

// The smallest and largest value the product of `parts` can take: each profile's extreme factors, 1
// included (the value before a profile's first step and between random episodes).
std::pair<double, double> factor_range(const std::vector<Profile>& parts) {
  double low = 1, high = 1;
  for (const Profile& p : parts) {
    double part_low = 1, part_high = 1;
    if (p.random) {
      part_low = std::min(1.0, p.episode_value);
      part_high = std::max(1.0, p.episode_value);
    }
    for (const auto& step : p.steps) {
      part_low = std::min(part_low, step.second);
      part_high = std::max(part_high, step.second);
    }
    low *= part_low;
    high *= part_high;
  }
  return {low, high};
}

// Effective values (nominal × factors) stay within the bounds nominal values have (common/keys.cpp):
// beyond them SimGrid's solver aborts, or a transfer never ends.
void check_effective(Spec& entry, const std::string& key, const std::string& what, double nominal,
                     double factor, const std::vector<Profile>& parts, double lowest, double highest,
                     const char* unit) {
  auto [low, high] = factor_range(parts);
  low *= factor;
  high *= factor;
  const auto text = [unit](double v) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.6g %s", v, unit);
    return std::string(buffer);
  };
  if (nominal * low < lowest || nominal * high > highest) {
    entry.fail(key, "takes " + what + " (" + text(nominal) + " nominal) to " +
                        text(nominal * low < lowest ? nominal * low : nominal * high) +
                        " with its factors and those of the other entries, outside [" + text(lowest) + ", " +
                        text(highest) + "]");
  }
}

// Adds `profile` to `element`'s list, with its own random stream.
void add(std::vector<std::vector<Profile>>& lists, std::size_t size, std::size_t element, Profile profile,
         Category category, std::size_t entry) {
  lists.resize(size);
  profile.stream_index = stream_index(category, entry, element);
  lists[element].push_back(std::move(profile));
}

// The "failures" entries of `parent`: each selected element (edge or node) gets the entry's state profile.
void read_failures(Spec& parent, std::uint64_t seed, std::vector<std::vector<Profile>>& lists,
                   std::size_t size, Category category,
                   const std::function<std::vector<std::size_t>(Spec&)>& select) {
  std::vector<Spec> entries = parent.objects("failures");
  for (std::size_t e = 0; e < entries.size(); ++e) {
    Spec& entry = entries[e];
    const auto selected = select(entry);
    const Profile profile = read_failure(entry, seed);
    for (std::size_t element : selected) add(lists, size, element, profile, category, e);
    entry.finish();
  }
}

}  // namespace

std::vector<keys::Key> network_dynamics_keys() {
  return {
      keys::objects("dynamics", link_dynamics_object(), "Time-varying link bandwidth and latency.")
          .fallback_to(nlohmann::json::array())
          .timing_only(),
      keys::objects("failures", link_failure_object(), "Link failures.").fallback_to(nlohmann::json::array()),
      keys::objects("background", background_object(), "Competing traffic.")
          .fallback_to(nlohmann::json::array())
          .timing_only(),
      // Failures and the receive timeout change what is learned (lost messages, skipped averages): not
      // timing-only.
      keys::duration("receive_timeout",
                     "Simulated seconds a receive waits before giving up (a lost message, a node or link "
                     "down); 0: forever. Must be > 0 when anything can fail.")
          .fallback_to(0),
      keys::choice(
          "failure_detector", {"none", "oracle", "misses"},
          "How a node learns that a neighbour cannot reach it (runs with a receive_timeout): \"none\" "
          "waits the full timeout every time; \"oracle\" knows the state of the links on the route "
          "and gives up at once on a neighbour behind a down link; \"misses\" suspects a neighbour "
          "after `detector_misses` consecutive missed receives and then waits for it only once in "
          "`detector_probe` receives (otherwise taking only a message already there), until a message "
          "arrives. docs/network.md, \"Failure detection\".")
          .fallback_to("none"),
      keys::integer("detector_misses",
                    "Consecutive missed receives after which failure_detector \"misses\" suspects a "
                    "neighbour.")
          .at_least(1)
          .at_most(1000000)
          .fallback_to(3),
      keys::integer("detector_probe",
                    "failure_detector \"misses\": while a neighbour is suspected, one receive in this many "
                    "waits the full timeout, to notice that it is back.")
          .at_least(1)
          .at_most(1000000)
          .fallback_to(10),
      keys::choice("late_messages", {"drop", "keep"},
                   "What becomes of a message whose receive gave up on it (runs with a receive_timeout): "
                   "\"drop\": nobody receives it; \"keep\": the receiver's next receive from that sender "
                   "takes it, so that sender's messages then arrive a round late instead of lost. A message "
                   "the network fails (a link or node down) is lost either way. docs/network.md, \"Late "
                   "messages\".")
          .fallback_to("drop")};
}

std::vector<keys::Key> compute_dynamics_keys() {
  return {keys::object("speed_spread", speed_spread_object(), "Per-node speed factors drawn from the seed.")
              .timing_only(),
          keys::objects("stragglers", straggler_object(), "Slower nodes and speed profiles.")
              .fallback_to(nlohmann::json::array())
              .timing_only(),
          keys::objects("failures", node_failure_object(), "Node failures.")
              .fallback_to(nlohmann::json::array())};
}

void read_network_dynamics(Spec& network, const topology::Topology& topology, std::uint64_t seed,
                           const std::string& base_dir, Dynamics& dynamics) {
  const std::size_t edges = topology.edges.size();
  std::vector<Spec> entries = network.objects("dynamics");
  for (std::size_t e = 0; e < entries.size(); ++e) {
    Spec& entry = entries[e];
    const auto selected = selected_edges(entry, topology);
    if (!entry.has("bandwidth") && !entry.has("latency"))
      entry.fail("bandwidth", "an entry needs \"bandwidth\" and/or \"latency\"");
    const auto edge_name = [&](std::size_t k) {
      return "edge " + std::to_string(topology.edges[k].a) + "-" + std::to_string(topology.edges[k].b) +
             "'s ";
    };
    if (entry.has("bandwidth")) {
      const Profile profile = read_time_profile(entry, "bandwidth", base_dir, seed);
      for (std::size_t k : selected) {
        add(dynamics.link_bandwidth, edges, k, profile, link_bandwidth, e);
        check_effective(entry, "bandwidth", edge_name(k) + "bandwidth", topology.edges[k].link.bandwidth, 1,
                        dynamics.link_bandwidth[k], 1e-3, 1e15, "B/s");
      }
    }
    if (entry.has("latency")) {
      const Profile profile = read_time_profile(entry, "latency", base_dir, seed);
      for (std::size_t k : selected) {
        add(dynamics.link_latency, edges, k, profile, link_latency, e);
        check_effective(entry, "latency", edge_name(k) + "latency", topology.edges[k].link.latency, 1,
                        dynamics.link_latency[k], 0, 1e6, "s");
      }
    }
    entry.finish();
  }
  read_failures(network, seed, dynamics.link_state, edges, link_state,
                [&](Spec& entry) { return selected_edges(entry, topology); });
  entries = network.objects("background");
  for (std::size_t e = 0; e < entries.size(); ++e) {
    Spec& entry = entries[e];
    BackgroundFlow flow;
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
      const auto edge = topology::edge_index(topology, flow.from, flow.to);
      if (!edge)
        entry.fail("fraction", "needs \"from\" and \"to\" adjacent (the edge whose bandwidth it takes)");
      flow.rate = fraction * topology.edges[*edge].link.bandwidth;
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
  const std::string detector = network.string("failure_detector");
  dynamics.failure_detector.kind = detector == "oracle"   ? FailureDetector::Kind::oracle
                                   : detector == "misses" ? FailureDetector::Kind::misses
                                                          : FailureDetector::Kind::none;
  dynamics.failure_detector.misses = static_cast<std::size_t>(network.integer("detector_misses"));
  dynamics.failure_detector.probe = static_cast<std::size_t>(network.integer("detector_probe"));
  dynamics.late_messages =
      network.string("late_messages") == "keep" ? LateMessages::keep : LateMessages::drop;
}

void read_compute_dynamics(Spec& compute, std::size_t nodes, double host_speed, std::uint64_t seed,
                           const std::string& base_dir, Dynamics& dynamics) {
  {
    Spec spread = compute.object("speed_spread");
    const std::string distribution = spread.string("distribution");
    const double s = spread.number("spread");
    if (distribution == "uniform" && s >= 1) spread.fail("spread", "must be below 1 for \"uniform\"");
    if (distribution != "none" && s > 0) {
      dynamics.node_speed.assign(nodes, 1.0);
      for (std::size_t i = 0; i < nodes; ++i) {
        Rng rng = Rng::stream(seed, stream_index(Category::speed, 0, i), Purpose::dynamics);
        dynamics.node_speed[i] =
            distribution == "uniform" ? 1 + s * (2 * rng.uniform() - 1) : std::exp(s * rng.normal());
        if (host_speed * dynamics.node_speed[i] < 1 || host_speed * dynamics.node_speed[i] > 1e30) {
          spread.fail("spread", "gives node " + std::to_string(i) + " a speed factor of " +
                                    std::to_string(dynamics.node_speed[i]) +
                                    ", which takes its speed outside [1, 1e30] flop/s");
        }
      }
    }
    spread.finish();
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
      const Profile profile = read_time_profile(entry, "profile", base_dir, seed);
      for (std::size_t i : selected) add(dynamics.node_speed_profile, nodes, i, profile, node_profile, e);
    }
    // The speed of every node it slows, with the spread's factor and every entry so far.
    for (std::size_t i : selected) {
      const double factor = dynamics.node_speed.empty() ? 1.0 : dynamics.node_speed[i];
      static const std::vector<Profile> none;
      const auto& parts = i < dynamics.node_speed_profile.size() ? dynamics.node_speed_profile[i] : none;
      check_effective(entry, entry.has("profile") ? "profile" : "slowdown",
                      "node " + std::to_string(i) + "'s speed", host_speed, factor, parts, 1, 1e30, "flop/s");
    }
    entry.finish();
  }
  read_failures(compute, seed, dynamics.node_state, nodes, node_state,
                [&](Spec& entry) { return selected_nodes(entry, nodes); });
}

}  // namespace sgdsim::sim
