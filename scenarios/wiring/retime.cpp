#include "scenarios/wiring/retime.hpp"

#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/dotted_path.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"
#include "common/utf8.hpp"
#include "observation/links.hpp"
#include "observation/retimer.hpp"
#include "observation/schedule.hpp"
#include "scenarios/wiring/output_folder.hpp"
#include "scenarios/wiring/run_summary.hpp"
#include "scenarios/wiring/scenario.hpp"
#include "sim/config/simulator_setup.hpp"

namespace sgdsim::scenarios {
namespace fs = std::filesystem;

namespace {
std::string schedule_path(const std::string& run_directory) {
  const std::string origin = (fs::path(run_directory) / observation::schedule_file_name).string();
  if (!fs::exists(origin))
    throw InputError(origin +
                     ": no schedule: record the run with `sgdsim run --record` (sweeps record the runs "
                     "they re-time from)");
  return origin;
}

// What re-timing needs of a recorded scenario under new timing settings, read without the data set, the
// model or the protocol (building those is most of a re-timed run's cost with a deep model): the network
// and compute objects as `run` reads them, and the price table rebuilt from the recorded entries' subjects.
struct Timing {
  nlohmann::json resolved;  // what `run` would write as resolved.json
  std::string name, algorithm;
  std::uint64_t seed = 1;
  topology::Topology topology;
  sim::NetworkOptions network;
  std::vector<std::string> warnings;
};

Timing read_timing(const nlohmann::json& document, const std::string& origin, const std::string& base_dir,
                   const observation::Schedule& schedule, const std::string& schedule_origin) {
  if (!document.is_object() || !document.contains("algorithm") || !document["algorithm"].is_object())
    throw InputError(origin + ": the recorded scenario has no algorithm object; record the run again");
  Timing timing;
  Spec root(document, origin, "", timing.resolved, scenario_keys());
  timing.name = root.string("name", repair_utf8(fs::path(origin).stem().string()));
  timing.seed = static_cast<std::uint64_t>(root.integer("seed"));
  sim::SimulatorSetup simulator = sim::read_simulator(root, timing.seed, base_dir);
  timing.topology = std::move(simulator.topology);
  timing.network = std::move(simulator.network);
  // The learning side was read (and resolved) when the run was recorded, and retime changes none of it.
  for (const auto& [key, value] : document.items())
    if (key != "name" && key != "seed" && key != "network" && key != "compute") root.echo(key, value);
  root.finish();
  auto prices = std::make_shared<protocols::PriceTable>(simulator.costs);
  for (std::size_t id = 0; id < schedule.prices.size(); ++id)
    if (prices->again(schedule.prices[id], schedule_origin + ": price " + std::to_string(id)) != id)
      throw InputError(schedule_origin + ": price " + std::to_string(id) +
                       " repeats an earlier one; record the run again");
  timing.resolved["compute"]["codecs"] = prices->codec_prices();
  timing.network.prices = std::move(prices);
  timing.algorithm = timing.resolved["algorithm"].value("kind", "");
  timing.warnings = settings_warnings(timing.resolved, origin);
  return timing;
}

// The model's parameter count, a summary.json figure: the recorded run's (the model is a learning key).
std::size_t recorded_dimension(const std::string& run_directory) {
  const std::string path = (fs::path(run_directory) / "summary.json").string();
  nlohmann::json summary;
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path + ": cannot read the recorded run's summary (it names the model's size)");
    summary = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": not JSON: " + e.what());
  }
  if (!summary.is_object() || !summary.contains("dimension") || !summary["dimension"].is_number_unsigned())
    throw InputError(path + ": $.dimension: the recorded run's model size is missing; record the run again");
  return summary["dimension"].get<std::size_t>();
}
}  // namespace

std::string describe_schedule(const std::string& run_directory) {
  const std::string origin = schedule_path(run_directory);
  const observation::Schedule schedule = observation::read_schedule(origin);
  const auto bytes = fs::file_size(origin);
  const std::uint64_t operations = schedule.operations();
  char per[64];
  std::snprintf(per, sizeof per, "%.3g", operations > 0 ? static_cast<double>(bytes) / operations : 0.0);
  return origin + ": format " + std::to_string(observation::schedule_format_version) + ", " +
         std::to_string(schedule.nodes.size()) + " nodes, " + std::to_string(schedule.rows.size()) +
         " trace rows, " + std::to_string(schedule.prices.size()) + " prices, " + std::to_string(operations) +
         " operations, " + std::to_string(bytes) + " bytes (" + per + " bytes per operation)";
}

void retime_to_directory(const std::string& run_directory, const std::vector<std::string>& overrides,
                         const std::string& directory, bool force) {
  // The replay allocates and frees SimGrid's activities by the hundred thousand in a heap that holds little
  // else (no data set, no model): without a pad glibc hands the top of the heap back to the kernel after a
  // free and takes it again at the next allocation, a brk call and fresh zeroed pages each time, which cost a
  // re-timed LeNet-5 run ten times its user time in system time.
  mallopt(M_TOP_PAD, 16 << 20);
  OutputFolder::check(directory, force);
  const std::string origin = schedule_path(run_directory);
  const observation::Schedule schedule = observation::read_schedule(origin);
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(schedule.resolved);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(origin + ": the recorded scenario is not JSON: " + e.what());
  }
  for (const std::string& text : overrides) {
    auto [path, value] = parse_assignment(text);
    // The name is a label (summary.json's "name"): it changes nothing that is computed.
    if (path != "name" && !keys::timing_only_setting(scenario_keys(), document, path, value))
      throw InputError(
          "--set " + text + ": " + path +
          " is not a timing-only key: it changes what the nodes compute, so the recorded learning "
          "does not hold for it (the keys retime may change are marked *Timing only.* in "
          "docs/scenario.md); run the scenario with `sgdsim run` instead");
    set_dotted(document, path, value, "--set " + text);
  }
  const std::string resolved_origin = (fs::path(run_directory) / "resolved.json").string();
  const Timing timing = read_timing(document, resolved_origin, schedule.base_dir, schedule, origin);
  if (const std::string why = why_time_dependent(timing.resolved["algorithm"], timing.network); !why.empty())
    throw InputError("cannot re-time: " + why);
  if (timing.topology.nodes != schedule.nodes.size())
    throw InputError(origin + ": the schedule has " + std::to_string(schedule.nodes.size()) +
                     " nodes, the scenario " + std::to_string(timing.topology.nodes));
  const std::size_t dimension = recorded_dimension(run_directory);

  OutputFolder output(directory, force);
  const fs::path& temporary = output.temporary();
  write_run_file(temporary / "resolved.json", timing.resolved.dump(2) + "\n");
  const auto start = std::chrono::steady_clock::now();
  sim::Recording recording;
  nlohmann::json summary;
  {
    std::ofstream trace(temporary / "trace.csv", std::ios::binary);
    observation::Retimer retimer(schedule, trace);
    const double end = sim::simulate(
        timing.topology, timing.network,
        [&retimer](std::size_t node, protocols::Port& port) { retimer.replay(node, port); }, {}, &recording);
    if (!retimer.complete()) throw std::runtime_error("the re-timed run ended before its last trace row");
    trace.close();
    if (!trace) throw std::runtime_error("cannot write " + (temporary / "trace.csv").string());
    RunRecord run{.name = timing.name,
                  .seed = timing.seed,
                  .algorithm = timing.algorithm,
                  .nodes = timing.topology.nodes,
                  .edges = timing.topology.edges.size(),
                  .dimension = dimension,
                  .diverged = nullptr,
                  .wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                  .optimum_s = 0,
                  .clock = nullptr,
                  .warnings = timing.warnings};
    summary = scenarios::summary(run, {retimer.last(), retimer.node_stats(), end, &recording.links});
  }
  {
    std::ostringstream links;
    observation::write_links(links, recording.links);
    write_run_file(temporary / "links.csv", links.str());
  }
  // Where it came from (a sweep's index.csv reads it): the recorded run and the settings changed.
  const nlohmann::json provenance = {{"source", run_directory}, {"set", overrides}};
  write_run_file(temporary / "retimed.json", provenance.dump(2) + "\n");
  write_run_file(temporary / "summary.json", summary.dump(2) + "\n");
  output.publish();
}

}  // namespace sgdsim::scenarios
