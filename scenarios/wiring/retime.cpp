#include "scenarios/wiring/retime.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/dotted_path.hpp"
#include "common/error.hpp"
#include "observation/links.hpp"
#include "observation/retimer.hpp"
#include "observation/schedule.hpp"
#include "scenarios/wiring/output_folder.hpp"
#include "scenarios/wiring/run_summary.hpp"
#include "scenarios/wiring/scenario.hpp"

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
    if (path != "name" && !keys::timing_only(scenario_keys(), document, path))
      throw InputError(
          "--set " + text + ": " + path +
          " is not a timing-only key: it changes what the nodes compute, so the recorded learning "
          "does not hold for it (the keys retime may change are marked *Timing only.* in "
          "docs/scenario.md); run the scenario with `sgdsim run` instead");
    set_dotted(document, path, value, "--set " + text);
  }
  const std::string resolved_origin = (fs::path(run_directory) / "resolved.json").string();
  Scenario scenario(document, resolved_origin, schedule.base_dir);
  if (const std::string why = scenario.why_time_dependent(); !why.empty())
    throw InputError("cannot re-time: " + why);
  if (scenario.topology().nodes != schedule.nodes.size())
    throw InputError(origin + ": the schedule has " + std::to_string(schedule.nodes.size()) +
                     " nodes, the scenario " + std::to_string(scenario.topology().nodes));
  // The ids in the schedule are the recorded table's: the new settings' table must describe the same work.
  if (const std::string why = scenario.network().prices->mismatch(schedule.prices); !why.empty())
    throw InputError(origin + ": " + why +
                     ": the schedule was recorded with other learning settings or by another sgdsim; record "
                     "the run again");

  OutputFolder output(directory, force);
  const fs::path& temporary = output.temporary();
  write_run_file(temporary / "resolved.json", scenario.resolved().dump(2) + "\n");
  const auto start = std::chrono::steady_clock::now();
  sim::Recording recording;
  nlohmann::json summary;
  {
    std::ofstream trace(temporary / "trace.csv", std::ios::binary);
    observation::Retimer retimer(schedule, trace);
    const double end = sim::simulate(
        scenario.topology(), scenario.network(),
        [&retimer](std::size_t node, protocols::Port& port) { retimer.replay(node, port); }, {}, &recording);
    if (!retimer.complete()) throw std::runtime_error("the re-timed run ended before its last trace row");
    trace.close();
    if (!trace) throw std::runtime_error("cannot write " + (temporary / "trace.csv").string());
    RunRecord run{.name = scenario.name(),
                  .seed = scenario.seed(),
                  .algorithm = scenario.algorithm(),
                  .nodes = scenario.topology().nodes,
                  .edges = scenario.topology().edges.size(),
                  .dimension = scenario.dimension(),
                  .diverged = nullptr,
                  .wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                  .optimum_s = 0,
                  .clock = nullptr,
                  .warnings = scenario.warnings()};
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
