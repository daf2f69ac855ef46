#pragma once
// What changes during a run (docs/network.md, "Dynamics and failures"): link bandwidth and latency, host
// speed, link and node failures, and background traffic. Plain descriptions, no SimGrid types: the scenario
// layer builds them, sim/ turns them into SimGrid profiles and actors, and tools print them.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sgdsim::sim {

// A piecewise-constant factor of simulated time (a multiplier of a nominal value, or a state 1 = up, 0 =
// down). Either a list of steps ("from time t the factor is v", 1 before the first), repeated every
// `period` seconds when period > 0, or random episodes: normal stretches (factor 1) and episodes (factor
// `episode_value`) alternating, their lengths drawn from the seeded stream `stream`.
struct Profile {
  std::vector<std::pair<double, double>> steps;  // (time s, factor), times ascending
  double period = 0;                             // steps: 0 = once; else repeat every period seconds
  bool random = false;
  double mean_normal = 0;         // random: mean length of a normal stretch (exponential), seconds
  double mean_episode = 0;        // random: mean (or exact, fixed_episode) length of an episode, seconds
  bool fixed_episode = false;     // random: episodes last exactly mean_episode
  double episode_value = 1;       // random: the factor during an episode
  std::uint64_t stream_seed = 0;  // random: Rng::stream(stream_seed, stream_index, Purpose::dynamics)
  std::uint64_t stream_index = 0;
  // A state profile read as a speed factor: 0 (down) becomes this (see stopped_speed_factor); else 0.
  double zero_as = 0;
};

// The changes of one factor in time order: (time, new factor). Several profiles multiply.
class ProfileEvents {
 public:
  explicit ProfileEvents(std::vector<Profile> parts);
  ~ProfileEvents();
  ProfileEvents(ProfileEvents&&) noexcept;
  ProfileEvents& operator=(ProfileEvents&&) noexcept;
  // The next change of the product, or nullopt when it never changes again.
  std::optional<std::pair<double, double>> next();

 private:
  struct Part;
  std::vector<std::unique_ptr<Part>> parts_;
  double product_ = 1;
};

// Every change of the product of `parts` up to `until` seconds (inclusive), starting with its value at 0; at
// most `max_changes` + 1 of them (more than max_changes: there were more).
std::vector<std::pair<double, double>> profile_until(const std::vector<Profile>& parts, double until,
                                                     std::size_t max_changes = SIZE_MAX);

// A competing flow: from `from` to `to` (routed like any message), either a constant stream capped at
// `rate` bytes/s (rate > 0, size 0), or bulk transfers of `size` bytes arriving as a Poisson process of
// `arrivals` per second (seeded by stream (stream_seed, stream_index, dynamics)).
struct BackgroundFlow {
  std::size_t from = 0, to = 0;
  double rate = 0;      // bytes/s of a constant flow (0: bulk transfers)
  double size = 0;      // bytes of one bulk transfer
  double arrivals = 0;  // bulk transfers per second
  std::uint64_t stream_seed = 0, stream_index = 0;
};

// How a node learns that a neighbour cannot reach it (docs/network.md, "Failure detection"). `none`: it waits
// the full receive timeout every time; `oracle`: it knows the state of the links on the route (a receive from
// a neighbour behind a down link gives up at once, and so does one whose message fails on the way); `misses`:
// after `misses` consecutive missed receives from a neighbour it suspects it and no longer waits for it (it
// takes a message that is already there), except one receive in `probe`, which waits in full to notice a
// recovery; a received message clears the suspicion.
struct FailureDetector {
  enum class Kind { none, oracle, misses } kind = Kind::none;
  std::size_t misses = 3;
  std::size_t probe = 10;
};

// What becomes of the message a receive gave up on (docs/network.md, "Late messages"): `drop`: nobody
// receives it; `keep`: it stays the next item of its channel, for the receiver's next receive from that
// sender. Either way a message the network fails is lost.
enum class LateMessages { drop, keep };

// Everything that varies, per edge (topology.edges order) and per node. Empty vectors: nothing varies.
struct Dynamics {
  std::vector<std::vector<Profile>> link_bandwidth;  // factors of each edge's bandwidth
  std::vector<std::vector<Profile>> link_latency;    // factors of each edge's latency
  std::vector<std::vector<Profile>> link_state;      // 1 up, 0 down (link failures)
  std::vector<double> node_speed;                    // static factor of each node's speed (stragglers)
  std::vector<std::vector<Profile>> node_speed_profile;
  std::vector<std::vector<Profile>> node_state;  // 1 up, 0 down (node failures)
  std::vector<BackgroundFlow> background;
  // Simulated seconds a receive waits before giving up; 0: forever. Required when anything can fail.
  double receive_timeout = 0;
  FailureDetector failure_detector;
  LateMessages late_messages = LateMessages::drop;
  // Changes all profiles together may make in one run: profiles that change faster than a run can simulate
  // (1 µs periods over minutes of simulated time) stop it with an InputError instead of running for hours.
  std::uint64_t max_profile_events = 20'000'000;

  bool any() const;
  bool has_failures() const;
  // How many nodes are down at simulated time `time` (node_state).
  std::size_t nodes_down(double time) const;
};

// The profile changes a run has made against Dynamics::max_profile_events; `exceeded` names the first profile
// that went over (empty while within), `at` the simulated time of that change.
struct EventBudget {
  std::uint64_t limit = 0;
  std::uint64_t used = 0;
  std::string exceeded;
  double at = 0;
};

// The factor by which a down node's host still computes: SimGrid ignores a speed factor of exactly 0, and a
// factor this small stops the host for any run length (1 Tf/s would do one flop in 1000 s).
inline constexpr double stopped_speed_factor = 1e-12;

// The effective profiles of one edge or node: what SimGrid is given (node failures also take down every
// link of the node, and slow its host to stopped_speed_factor). Used by sim/ and by `sgdsim network`.
struct ResolvedLink {
  std::vector<Profile> bandwidth, latency, state;
};
ResolvedLink resolved_link(const Dynamics& dynamics, std::size_t edge, std::size_t a, std::size_t b);
std::vector<Profile> resolved_speed(const Dynamics& dynamics, std::size_t node);

}  // namespace sgdsim::sim
