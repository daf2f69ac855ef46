#include "app/run_selection.hpp"

#include "analysis/run_groups.hpp"

namespace sgdsim::app {

void add_run_selection(CLI::App& command, RunSelection& selection) {
  command.add_option("dirs", selection.dirs, "Run folders and sweep folders")->required();
  command.add_option("--where", selection.where,
                     "Keep only runs whose parameter KEY has VALUE (KEY=VALUE) or not (KEY!=VALUE); VALUE "
                     "may list alternatives A|B; repeatable, all must hold");
  command.add_option("--group", selection.group,
                     "Group runs by this parameter (an index column or dotted scenario path); repeatable. "
                     "Default: every parameter that varies, except the seed (and the bandwidth, by "
                     "bandwidth)");
}

std::vector<analysis::RunData> select_runs(const RunSelection& selection) {
  std::vector<analysis::RunFilter> filters;
  for (const auto& text : selection.where) filters.push_back(analysis::parse_run_filter(text));
  return analysis::filter_runs(analysis::collect_runs(selection.dirs), filters);
}

}  // namespace sgdsim::app
