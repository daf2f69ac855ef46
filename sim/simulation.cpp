// simulate(): one SimGrid engine, the topology's platform, one actor per node, errors turned into exceptions.
#include "sim/simulation.hpp"

#include <atomic>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>

#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u.hpp>

#include "common/error.hpp"
#include "common/rng.hpp"
#include "sim/interrupt.hpp"
#include "sim/platform.hpp"
#include "sim/simgrid_port.hpp"
#include "sim/traffic_meter.hpp"

namespace sgdsim::sim {

namespace {

namespace s4u = simgrid::s4u;

// The first error of a run: later ones are usually consequences (peers waiting on a dead node).
struct Failure {
  std::string message;
  bool input_error = false;
  std::optional<Diverged> diverged;
};

#if defined(__SANITIZE_ADDRESS__)
constexpr bool address_sanitizer = true;
#elif defined(__has_feature)
constexpr bool address_sanitizer = __has_feature(address_sanitizer);
#else
constexpr bool address_sanitizer = false;
#endif

bool changes_link_values(const Dynamics& dynamics) {
  for (const auto* profiles : {&dynamics.link_bandwidth, &dynamics.link_latency})
    for (const auto& link : *profiles)
      if (!link.empty()) return true;
  return false;
}

bool has_latency_profiles(const Dynamics& dynamics) {
  for (const auto& link : dynamics.link_latency)
    if (!link.empty()) return true;
  return false;
}

std::vector<std::string> engine_arguments(const NetworkOptions& options) {
  std::vector<std::string> args{"sgdsim"};
  // AddressSanitizer misreads the stack switches of SimGrid's fast context factories (exceptions thrown in an
  // actor are flagged as stack-buffer-underflow); OS threads are slower but ASan understands them.
  if (address_sanitizer) args.emplace_back("--cfg=contexts/factory:thread");
  if (!options.verbose) {
    args.emplace_back("--log=root.thres:critical");
    // The engine's deadlock notice is critical; simulate() reports deadlocks itself, naming the nodes.
    args.emplace_back("--log=ker_engine.app:file:/dev/null");
  }
  if (options.model == "ideal") {
    // CM02 without cross-traffic and without the TCP window cap: a message of B bytes over h hops takes
    // exactly h * latency + B / bandwidth, and concurrent flows share a link's bandwidth fairly. The cap is
    // gamma / (2 * latency); gamma 0 would switch it off but also drop a comm's own rate (background flows'
    // caps), so gamma is made too large to ever bind instead.
    args.emplace_back("--cfg=network/model:CM02");
    args.emplace_back("--cfg=network/crosstraffic:0");
    args.emplace_back("--cfg=network/TCP-gamma:1e100");
  } else if (options.model != "tcp") {
    throw InputError("network model \"" + options.model + "\" is unknown (expected \"ideal\" or \"tcp\")");
  } else if (changes_link_values(options.dynamics)) {
    // The reverse cross-traffic puts every flow on both directions of its link too, and SimGrid 3.32 then
    // applies a bandwidth or latency change of the two directions to it twice: the flow's latency or penalty
    // goes negative (a deadlock, an abort). Such runs do without the acknowledgements' 5 % (docs/network.md).
    args.emplace_back("--cfg=network/crosstraffic:0");
  }
  // A latency change (and under tcp a bandwidth change, which moves the flows' penalties) gives a flow still
  // in its latency its sharing penalty early; SimGrid's lazy update then drops the flow from its event heap
  // when its latency ends, and the message never arrives. The full update has no heap to lose it from.
  if (has_latency_profiles(options.dynamics) ||
      (options.model == "tcp" && changes_link_values(options.dynamics)))
    args.emplace_back("--cfg=network/optim:Full");
  return args;
}

std::string deadlock_report(const std::vector<std::unique_ptr<SimPort>>& ports,
                            const std::vector<char>& done) {
  std::string list;
  std::size_t blocked = 0;
  for (std::size_t i = 0; i < ports.size(); ++i) {
    if (done[i]) continue;
    if (++blocked > 8) continue;
    const Waiting& w = ports[i]->waiting();
    list += (list.empty() ? "" : "; ") + ("node " + std::to_string(i));
    if (w.operation && std::string(w.operation) == "receive from")
      list += " waits in receive(from " + std::to_string(w.peer) + ")";
    else if (w.operation)
      list += std::string(" waits in ") + w.operation + "()";
  }
  if (blocked > 8) list += "; and " + std::to_string(blocked - 8) + " more";
  return "deadlock at simulated time " + std::to_string(s4u::Engine::get_clock()) +
         " s: " + std::to_string(blocked) + " node(s) blocked forever: " + list;
}

std::atomic<bool> engine_used{false};

// A competing flow as daemon actors (they end with the last node); only its bytes compete for the links on
// its route. A failure ends a transfer early; the flow resumes after one second (constant flows) or at the
// next arrival (bulk transfers).
void start_background(std::size_t index, const BackgroundFlow& flow, const std::vector<s4u::Host*>& hosts) {
  s4u::Host* from = hosts.at(flow.from);
  s4u::Host* to = hosts.at(flow.to);
  const std::string name =
      "background" + std::to_string(index) + ":" + std::to_string(flow.from) + ">" + std::to_string(flow.to);
  if (flow.rate > 0) {
    // A mailbox comm: SimGrid's host-to-host transfers ignore set_rate, mailbox comms honour it. A receiver
    // on the destination takes each transfer.
    s4u::Mailbox* mailbox = s4u::Mailbox::by_name(name);
    s4u::Actor::create(name + "-receiver", to, [mailbox] {
      s4u::Actor::self()->daemonize();
      for (;;) {
        try {
          mailbox->get<char>();
        } catch (const simgrid::Exception&) {
          // the sender retries
        }
      }
    });
    s4u::Actor::create(name, from, [flow, mailbox] {
      s4u::Actor::self()->daemonize();
      static char payload = 0;  // nothing is read: only the simulated size counts
      // Long enough to outlast any run at its rate (about 3000 years at 1 TB/s).
      constexpr std::uint64_t endless = std::uint64_t{1} << 62;
      for (;;) {
        try {
          mailbox->put_init(&payload, endless)->set_rate(flow.rate)->wait();
        } catch (const simgrid::Exception&) {
          s4u::this_actor::sleep_for(1.0);
        }
      }
    });
    return;
  }
  s4u::Actor::create(name, from, [flow, from, to, name] {
    s4u::Actor::self()->daemonize();
    Rng rng = Rng::stream(flow.stream_seed, flow.stream_index, Purpose::dynamics);
    for (;;) {
      s4u::this_actor::sleep_for(-std::log1p(-rng.uniform()) / flow.arrivals);
      // One actor per transfer, so transfers overlap as arrivals do (a host-to-host comm starts as soon as
      // both ends are known and cannot be detached).
      s4u::Actor::create(name + "-transfer", from, [from, to, size = flow.size] {
        s4u::Actor::self()->daemonize();
        try {
          s4u::Comm::sendto(from, to, static_cast<std::uint64_t>(size));
        } catch (const simgrid::Exception&) {
          // a failure ended it early
        }
      });
    }
  });
}

}  // namespace

double simulate(const topology::Topology& topology, const NetworkOptions& options, const NodeBody& body,
                const NodeBody& server, Recording* recording) {
  if (engine_used.exchange(true))
    throw std::logic_error(
        "simulate() called twice in one process (SimGrid 3.32 allows one engine per process)");
  if (!(options.host_speed > 0)) throw InputError("host speed must be positive");

  std::vector<std::string> args = engine_arguments(options);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  s4u::Engine engine(&argc, argv.data());
  report_interrupts();

  std::vector<PlatformLink> links;
  EventBudget budget;
  budget.limit = options.dynamics.max_profile_events;
  const std::vector<s4u::Host*> hosts =
      build_platform(topology, options.host_speed, options.dynamics, links, budget);
  if (!options.calibration.empty()) {
    // The callbacks replace the model's own factors (LV08's 13.01 and 0.97 under tcp) for every message.
    auto* model = engine.get_netzone_root()->get_network_model();
    const NetworkCalibration calibration = options.calibration;
    model->set_lat_factor_cb([calibration](double size, const s4u::Host*, const s4u::Host*,
                                           const std::vector<s4u::Link*>&,
                                           const std::unordered_set<s4u::NetZone*>&) {
      return calibration.at(size).latency_factor;
    });
    model->set_bw_factor_cb([calibration](double size, const s4u::Host*, const s4u::Host*,
                                          const std::vector<s4u::Link*>&,
                                          const std::unordered_set<s4u::NetZone*>&) {
      return calibration.at(size).bandwidth_factor;
    });
  }
  Recording unused;
  TrafficMeter meter(recording ? *recording : unused, hosts, std::move(links));

  const std::size_t n = topology.nodes;
  Network network(n, options.header_bytes, options.mtu, options.dynamics.receive_timeout, options.prices,
                  &meter);
  network.set_failure_detector(options.dynamics.failure_detector);
  network.set_late_messages(options.dynamics.late_messages);
  network.set_event_budget(&budget);
  std::vector<std::unique_ptr<SimPort>> ports;
  for (std::size_t i = 0; i < n; ++i) ports.push_back(std::make_unique<SimPort>(network, i));
  std::vector<char> done(n, 0);
  std::optional<Failure> failure;

  // Runs one actor's work; the first error of the run is kept and stops every actor.
  auto guarded = [&](std::size_t i, const std::function<void()>& work) {
    try {
      work();
    } catch (const simgrid::ForcefulKillException&) {
      throw;  // SimGrid unwinding a killed actor: must pass through
    } catch (const Diverged& e) {
      if (!failure) {
        failure = Failure{e.what(), false, e};
        s4u::Actor::kill_all();
      }
    } catch (const std::exception& e) {
      if (!failure) {
        failure = Failure{"node " + std::to_string(i) + ": " + e.what(),
                          dynamic_cast<const InputError*>(&e) != nullptr, std::nullopt};
        // Nothing useful can follow; stop the other nodes instead of letting them deadlock.
        s4u::Actor::kill_all();
      }
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    network.actors().push_back(s4u::Actor::create("node" + std::to_string(i), hosts[i], [&, i] {
      guarded(i, [&] {
        body(i, *ports[i]);
        // Sends still in flight when the body returns would be cancelled with the actor.
        ports[i]->wait_sends();
      });
      done[i] = 1;
    }));
  }
  for (std::size_t k = 0; k < options.dynamics.background.size(); ++k)
    start_background(k, options.dynamics.background[k], hosts);
  std::vector<std::unique_ptr<ServerPort>> server_ports;
  if (server) {
    for (std::size_t i = 0; i < n; ++i) {
      server_ports.push_back(std::make_unique<ServerPort>(network, i));
      network.servers().push_back(s4u::Actor::create("server" + std::to_string(i), hosts[i], [&, i] {
        // A daemon: killed when the last node body has returned, so a server may wait forever.
        s4u::Actor::self()->daemonize();
        guarded(i, [&] { server(i, *server_ports[i]); });
      }));
    }
  }
  network.open_neighbor_channels(topology);
  s4u::Engine::on_deadlock_cb([&] {
    if (!failure) failure = Failure{deadlock_report(ports, done), false, std::nullopt};
  });

  engine.run();
  const double end = s4u::Engine::get_clock();
  network.release();
  meter.finish(end);
  if (failure) {
    if (failure->diverged) throw failure->diverged->at_time(end);
    if (failure->input_error) throw InputError(failure->message);
    throw std::runtime_error(failure->message);
  }
  return end;
}

}  // namespace sgdsim::sim
