#include "scenarios/wiring/emulate.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <sstream>

#include "common/dotted_path.hpp"
#include "common/error.hpp"
#include "emulation/emulator.hpp"
#include "emulation/fabric.hpp"
#include "emulation/interrupt.hpp"
#include "emulation/replay.hpp"
#include "observation/schedule.hpp"
#include "scenarios/wiring/output_folder.hpp"
#include "scenarios/wiring/scenario.hpp"
#include "sim/simulation.hpp"

namespace sgdsim::scenarios {
namespace fs = std::filesystem;

namespace {

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * t.tv_usec; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// The machine's busy and total jiffies (/proc/stat's first line): what every process, ours included, used.
std::pair<double, double> machine_jiffies() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  const double busy = user + nice + system + irq + softirq + steal;
  return {busy, busy + idle + iowait};
}

}  // namespace

nlohmann::json emulate_to_directory(const EmulateOptions& options) {
  OutputFolder::check(options.output, options.force);
  emulation::require_network_tools();
  const std::string origin = (fs::path(options.run_directory) / observation::schedule_file_name).string();
  if (!fs::exists(origin))
    throw InputError(origin + ": no schedule: record the run with `sgdsim run --record`");
  const observation::Schedule schedule = observation::read_schedule(origin);
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(schedule.resolved);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(origin + ": the recorded scenario is not JSON: " + e.what());
  }
  for (const std::string& text : options.overrides) {
    auto [path, value] = parse_assignment(text);
    if (path != "name" && !keys::timing_only(scenario_keys(), document, path))
      throw InputError("--set " + text + ": " + path +
                       " is not a timing-only key (the keys marked *Timing only.* in docs/scenario.md)");
    set_dotted(document, path, value, "--set " + text);
  }
  Scenario scenario(document, (fs::path(options.run_directory) / "resolved.json").string(),
                    schedule.base_dir);
  if (const std::string why = scenario.why_time_dependent(); !why.empty())
    throw InputError("cannot emulate: " + why);
  const std::size_t nodes = schedule.nodes.size();
  if (scenario.topology().nodes != nodes)
    throw InputError(origin + ": the schedule has " + std::to_string(nodes) + " nodes, the scenario " +
                     std::to_string(scenario.topology().nodes));
  if (scenario.network().prices && scenario.network().prices->prices().size() != schedule.prices.size())
    throw InputError(origin +
                     ": the recorded price table does not match the scenario's; record the run again");

  const std::string prefix = "sgdsim-" + std::to_string(getpid()) + "-";
  const topology::Topology& physical = scenario.topology();
  std::optional<emulation::FabricPlan> planned;
  if (physical.kind == "switch") {
    // One switch: every node's NIC is its one edge to the switch (a Linux bridge).
    std::vector<double> nic(nodes, 0);
    for (const topology::Edge& e : physical.edges) nic.at(e.a) = e.link.bandwidth;
    planned = emulation::FabricPlan::switched(prefix, nic, {options.qdisc});
  } else if (!physical.routers.empty()) {
    throw InputError("emulate: the " + physical.kind +
                     " network has switches inside hosts or several switches; emulate builds one switch "
                     "(\"switch\") or point-to-point links only");
  } else {
    // The physical links the messages take (every pair that talks must be neighbours).
    std::vector<emulation::PlannedLink> links;
    for (const auto& [a, b] : emulation::talking_pairs(schedule)) {
      const auto edge = topology::edge_index(physical, a, b);
      if (!edge)
        throw InputError(
            "emulate: nodes " + std::to_string(a) + " and " + std::to_string(b) +
            " exchange messages but are not neighbours in the topology; the emulated network carries "
            "messages over one link (it does not forward)");
      links.push_back({a, b, physical.edges[*edge].link.bandwidth});
    }
    planned.emplace(prefix, nodes, links, emulation::FabricOptions{options.qdisc});
  }
  const emulation::FabricPlan& plan = *planned;

  // The prediction: the same operations on SimGrid's port, cut at the same markers.
  std::vector<std::vector<protocols::NodeStats>> simulated(nodes);
  sim::simulate(scenario.topology(), scenario.network(), [&](std::size_t node, protocols::Port& port) {
    simulated[node] = emulation::replay_node(schedule.nodes[node], port, options.compute);
  });

  OutputFolder output(options.output, options.force);
  std::vector<std::vector<protocols::NodeStats>> measured;
  nlohmann::json record;
  {
    emulation::Watch watch;
    emulation::Fabric fabric(plan);
    watch.check();
    const double cpu_before = process_cpu_seconds();
    const auto machine_before = machine_jiffies();
    const auto wall_before = std::chrono::steady_clock::now();
    const emulation::ComputeReplay compute{options.compute ? scenario.network().prices.get() : nullptr,
                                           scenario.network().host_speed};
    measured = emulation::emulate(schedule, fabric, compute, watch);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_before).count();
    const double cpu = process_cpu_seconds() - cpu_before;
    const auto machine_after = machine_jiffies();
    const double cores = static_cast<double>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    const double machine_total = machine_after.second - machine_before.second;
    record["cpu"] = {
        {"wall_s", wall},
        {"process_s", cpu},
        {"cores", cores},
        {"process_share", wall > 0 ? cpu / (wall * cores) : 0.0},
        {"machine_busy_share",
         machine_total > 0 ? (machine_after.first - machine_before.first) / machine_total : 0.0}};
    record["qdisc"] = {{"kind", options.qdisc},
                       {"example", plan.links().empty() ? std::string() : fabric.qdisc_report(0, 0)}};
    fabric.teardown();
  }

  std::vector<std::int64_t> steps;
  for (const observation::TraceRow& row : schedule.rows) steps.push_back(row.step);
  const auto intervals = emulation::intervals(simulated, measured, steps);
  const emulation::ErrorSummary errors = emulation::summarize(intervals);
  const auto number_or_null = [](double x) {
    return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json();
  };
  nlohmann::json validation = {
      {"median_relative_error", number_or_null(errors.median_relative)},
      {"p90_relative_error", number_or_null(errors.p90_relative)},
      {"median_signed_relative_error", number_or_null(errors.median_signed)},
      {"steps", steps.empty() ? 0 : steps.back()},
      {"nodes", nodes},
      {"intervals", intervals.size()},
      {"compared_intervals", errors.intervals},
      {"links", plan.links().size()},
      {"switch", plan.is_switched()},
      {"compute", options.compute ? "waits" : "skipped"},
      {"network_model", scenario.network().model},
      {"set", options.overrides},
      {"source", options.run_directory},
      {"kernel", emulation::kernel_release()},
      {"qdisc", record["qdisc"]},
      {"cpu", record["cpu"]},
      {"latency", "not emulated (no netem in this kernel): the links add no delay beyond the stack's own"}};
  const fs::path& folder = output.temporary();
  {
    std::ostringstream csv;
    emulation::write_comparison(csv, intervals);
    write_file(folder / "comparison.csv", csv.str());
  }
  write_file(folder / "validation.json", validation.dump(2) + "\n");
  write_file(folder / "resolved.json", scenario.resolved().dump(2) + "\n");
  if (options.draw) options.draw(folder, intervals);
  output.publish();
  return validation;
}

}  // namespace sgdsim::scenarios
