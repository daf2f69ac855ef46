#pragma once
// Which runs a figure or table shows, and how they are put together: filters on parameters (--where), and
// groups (series) made of the runs that agree on the grouping parameters — by default every parameter that
// takes more than one value among the runs, the seed excluded, so seeds of one setting are averaged.
#include <set>
#include <string>
#include <vector>

#include "analysis/plot_runs.hpp"

namespace sgdsim::analysis {

// KEY=VALUE keeps the runs whose parameter KEY has that value; KEY!=VALUE drops them; VALUE may list
// alternatives, A|B|C (any of them). KEY is an index column or a dotted path of the resolved scenario; values
// compare as their text in index.csv / resolved.json.
struct RunFilter {
  std::string key;
  std::vector<std::string> values;
  bool equal = true;
};
// Parses "KEY=VALUE" or "KEY!=VALUE"; InputError naming the text otherwise.
RunFilter parse_run_filter(const std::string& text);
// The runs every filter keeps. InputError when a filter's key is no run's parameter, or nothing is left.
std::vector<RunData> filter_runs(std::vector<RunData> runs, const std::vector<RunFilter>& filters);

struct RunGroup {
  std::string legend;
  std::vector<const RunData*> runs;
};

// The parameters that take more than one value among the runs, except `excluded`.
std::vector<std::string> varied_parameters(const std::vector<RunData>& runs,
                                           const std::set<std::string>& excluded);
// `keys` empty: every varied parameter except `excluded`; else InputError for a key no run has.
std::vector<std::string> grouping_keys(const std::vector<RunData>& runs, const std::vector<std::string>& keys,
                                       const std::set<std::string>& excluded);
// Groups in order of first appearance; legends from the grouping values.
std::vector<RunGroup> group_runs(const std::vector<RunData>& runs, const std::vector<std::string>& keys);

// The series of a figure or table: grouped by `keys` when given. Otherwise by what varies (grouping_keys),
// unless the runs come from several folders and not all are lone runs (a sweep beside a single run, or two
// sweeps): then each sweep's runs are grouped by that sweep's own columns (its labelled axes; `excluded`
// left out) and each lone run is a series named by its scenario name (its folder's name when two differ in
// more than their seed), with the sweep folder's name before its series when there are several sweeps.
std::vector<RunGroup> series_groups(const std::vector<RunData>& runs, const std::vector<std::string>& keys,
                                    const std::set<std::string>& excluded);

}  // namespace sgdsim::analysis
