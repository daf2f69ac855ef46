#include "analysis/sweep_retiming.hpp"

#include "algorithms/protocols/protocol.hpp"
#include "common/dotted_path.hpp"
#include "common/keys.hpp"
#include "scenarios/wiring/scenario.hpp"

namespace sgdsim::analysis {
namespace {

// Whether a point's scenario may depend on time, judged from its JSON (before validation): a kind that
// declares "time_dependent", or any receive timeout that is not plainly 0.
bool may_depend_on_time(const json& scenario) {
  if (scenario.contains("algorithm") && scenario["algorithm"].is_object()) {
    try {
      if (protocols::time_dependent(scenario["algorithm"])) return true;
    } catch (const std::exception&) {
      return true;  // an invalid algorithm: its run fails anyway, live
    }
  } else {
    return true;
  }
  const json* timeout = find_dotted(scenario, "network.receive_timeout");
  if (!timeout) return false;
  return !(*timeout == 0 || *timeout == "0" || *timeout == "0s");
}

}  // namespace

RetimingPlan plan_retiming(const Sweep& sweep, const std::vector<SweepPoint>& points,
                           const std::string& scenario_dir) {
  RetimingPlan plan;
  std::map<std::string, std::string> sources;  // group key -> the group's first point
  for (const SweepPoint& point : points) {
    const json scenario = point_scenario(sweep, point, scenario_dir);
    if (may_depend_on_time(scenario)) continue;
    json learning = json::object();
    std::vector<std::string> timing;
    for (auto it = point.overrides.begin(); it != point.overrides.end(); ++it) {
      if (keys::timing_only(scenarios::scenario_keys(), scenario, it.key()))
        timing.push_back(it.key());
      else
        learning[it.key()] = it.value();
    }
    const std::string key = std::to_string(point.seed) + "\n" + learning.dump() + "\n" + json(timing).dump();
    const auto [source, first] = sources.try_emplace(key, point.id);
    if (first) continue;
    Retiming retiming{source->second, {"name=" + json(scenario.value("name", "")).dump()}};
    for (const std::string& path : timing)
      retiming.sets.push_back(path + "=" + find_dotted(scenario, path)->dump());
    plan.record.insert(source->second);
    plan.retimed.emplace(point.id, std::move(retiming));
  }
  return plan;
}

}  // namespace sgdsim::analysis
