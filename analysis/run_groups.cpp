#include "analysis/run_groups.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "common/dotted_path.hpp"
#include "common/error.hpp"

namespace sgdsim::analysis {
namespace {

std::string shorten(const std::string& text) {
  return text.size() <= 48 ? text : text.substr(0, 45) + "...";
}

// Gives each group its legend in `full` where the short legend it has would name another group too (two
// legends that differ only past the cut): different series never share a name.
void keep_legends_apart(std::vector<RunGroup>& groups, const std::vector<std::string>& full) {
  std::map<std::string, std::set<std::string>> meanings;  // short legend -> the full legends it stands for
  for (std::size_t g = 0; g < groups.size(); ++g) meanings[groups[g].legend].insert(full[g]);
  for (std::size_t g = 0; g < groups.size(); ++g)
    if (meanings[groups[g].legend].size() > 1) groups[g].legend = full[g];
}

// The resolved scenario without its seed: lone runs that differ only there are seeds of one setting.
json without_seed(const json& resolved) {
  json copy = resolved;
  if (copy.is_object()) copy.erase("seed");
  return copy;
}

// One legend per run when runs of several folders are shown together (series_groups), before shortening.
std::vector<std::string> mixed_legends(const std::vector<RunData>& runs,
                                       const std::set<std::string>& excluded) {
  std::set<std::string> sweeps;
  for (const auto& run : runs)
    if (!run.lone) sweeps.insert(run.source);
  std::vector<std::string> legends;
  for (const auto& run : runs) {
    std::string legend;
    if (run.lone) {
      legend = run.name;
      // Another lone run of the same name that is not just another seed of it: name both by their folders.
      for (const auto& other : runs)
        if (other.lone && &other != &run && other.name == run.name &&
            without_seed(other.resolved) != without_seed(run.resolved))
          legend = std::filesystem::path(run.dir).filename().string();
    } else {
      std::vector<std::string> axes;
      for (const auto& axis : run.axes)
        if (!excluded.count(axis)) axes.push_back(axis);
      for (const auto& axis : axes) {
        const std::string value = run.parameter(axis).value_or("");
        legend +=
            (legend.empty() ? "" : ", ") + (axes.size() == 1 ? value : last_segment(axis) + "=" + value);
      }
      std::filesystem::path path = std::filesystem::path(run.source).lexically_normal();
      if (path.filename().empty()) path = path.parent_path();  // "results/study/"
      const std::string folder = path.filename().string();
      const std::string sweep = folder.empty() ? run.source : folder;
      if (legend.empty())
        legend = sweep;
      else if (sweeps.size() > 1)
        legend = sweep + ": " + legend;
    }
    legends.push_back(legend);
  }
  return legends;
}

bool any_run_has(const std::vector<RunData>& runs, const std::string& key) {
  return std::any_of(runs.begin(), runs.end(),
                     [&](const RunData& r) { return r.parameter(key).has_value(); });
}

}  // namespace

RunFilter parse_run_filter(const std::string& text) {
  const auto at = text.find('=');
  if (at == std::string::npos || at == 0 || (at == 1 && text[0] == '!')) {
    throw InputError("--where " + text + ": expected KEY=VALUE or KEY!=VALUE (e.g. algorithm.kind=choco)");
  }
  RunFilter filter;
  filter.equal = text[at - 1] != '!';
  filter.key = text.substr(0, filter.equal ? at : at - 1);
  const std::string values = text.substr(at + 1);
  for (std::size_t begin = 0;;) {
    const auto bar = values.find('|', begin);
    filter.values.push_back(values.substr(begin, bar == std::string::npos ? bar : bar - begin));
    if (bar == std::string::npos) break;
    begin = bar + 1;
  }
  return filter;
}

std::vector<RunData> filter_runs(std::vector<RunData> runs, const std::vector<RunFilter>& filters) {
  for (const auto& filter : filters) {
    if (!any_run_has(runs, filter.key)) {
      throw InputError("--where " + filter.key +
                       ": no run has this parameter (use an index column or a dotted scenario path "
                       "such as algorithm.kind)");
    }
    std::set<std::string> present;  // the values the runs left have, to list when none matches
    for (const RunData& run : runs) present.insert(run.parameter(filter.key).value_or(""));
    std::erase_if(runs, [&](const RunData& run) {
      const std::string value = run.parameter(filter.key).value_or("");
      const bool listed = std::find(filter.values.begin(), filter.values.end(), value) != filter.values.end();
      return listed != filter.equal;
    });
    if (runs.empty()) {
      std::string values;
      for (const auto& value : present) values += (values.empty() ? "" : ", ") + value;
      std::string given;
      for (const auto& value : filter.values) given += (given.empty() ? "" : "|") + value;
      throw InputError("--where " + filter.key + (filter.equal ? "=" : "!=") + given + ": no run " +
                       (filter.equal ? "has" : "is left without") + " that value; " + filter.key +
                       " has: " + values);
    }
  }
  if (runs.empty()) throw InputError("--where: no run is left after the filters");
  return runs;
}

std::vector<std::string> varied_parameters(const std::vector<RunData>& runs,
                                           const std::set<std::string>& excluded) {
  std::set<std::string> keys;
  for (const auto& run : runs) {
    for (const auto& [key, value] : run.parameters) keys.insert(key);
  }
  std::vector<std::string> varied;
  for (const auto& key : keys) {
    if (excluded.count(key)) continue;
    std::set<std::string> values;
    for (const auto& run : runs) values.insert(run.parameter(key).value_or(""));
    if (values.size() > 1) varied.push_back(key);
  }
  return varied;
}

std::vector<std::string> grouping_keys(const std::vector<RunData>& runs, const std::vector<std::string>& keys,
                                       const std::set<std::string>& excluded) {
  if (keys.empty()) return varied_parameters(runs, excluded);
  for (const auto& key : keys) {
    if (!any_run_has(runs, key)) {
      throw InputError("--group " + key +
                       ": no run has this parameter (use an index column or a dotted scenario path such "
                       "as algorithm.kind)");
    }
  }
  return keys;
}

std::vector<RunGroup> group_runs(const std::vector<RunData>& runs, const std::vector<std::string>& keys) {
  std::vector<RunGroup> groups;
  std::vector<std::string> full;  // each group's legend with no value shortened
  std::map<std::vector<std::string>, std::size_t> position;
  for (const auto& run : runs) {
    std::vector<std::string> values;
    for (const auto& key : keys) values.push_back(run.parameter(key).value_or(""));
    auto [it, fresh] = position.emplace(values, groups.size());
    if (fresh) {
      RunGroup group;
      std::string whole;
      if (keys.size() == 1) {
        whole = values[0].empty() ? "(none)" : values[0];
        group.legend = shorten(whole);
      } else {
        for (std::size_t k = 0; k < keys.size(); ++k) {
          const std::string prefix = (k ? ", " : "") + last_segment(keys[k]) + "=";
          group.legend += prefix + shorten(values[k]);
          whole += prefix + values[k];
        }
      }
      groups.push_back(group);
      full.push_back(whole);
    }
    groups[it->second].runs.push_back(&run);
  }
  keep_legends_apart(groups, full);
  if (keys.empty() && !groups.empty()) {
    groups[0].legend = runs.size() == 1 ? runs[0].name : "mean of " + std::to_string(runs.size()) + " runs";
  }
  return groups;
}

std::vector<RunGroup> series_groups(const std::vector<RunData>& runs, const std::vector<std::string>& keys,
                                    const std::set<std::string>& excluded) {
  std::set<std::string> sources;
  bool all_lone = true;
  for (const auto& run : runs) {
    sources.insert(run.source);
    all_lone = all_lone && run.lone;
  }
  if (!keys.empty() || sources.size() < 2 || all_lone)
    return group_runs(runs, grouping_keys(runs, keys, excluded));
  // Each run's parameters would be a different kind of thing (a sweep's columns, a lone run's whole
  // scenario), and grouping by everything that varies among them names series by dozens of keys.
  const std::vector<std::string> legends = mixed_legends(runs, excluded);
  std::vector<RunGroup> groups;
  std::vector<std::string> full;
  std::map<std::string, std::size_t>
      position;  // by the whole legend: series that differ past the cut stay apart
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto [it, fresh] = position.emplace(legends[i], groups.size());
    if (fresh) {
      groups.push_back({shorten(legends[i]), {}});
      full.push_back(legends[i]);
    }
    groups[it->second].runs.push_back(&runs[i]);
  }
  keep_legends_apart(groups, full);
  return groups;
}

}  // namespace sgdsim::analysis
