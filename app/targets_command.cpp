// `sgdsim targets DIR... --target VALUE... [--metric M] [--where KEY=VALUE]... [--group KEY]...
//  [--relative-to SERIES] [--by-bandwidth [--baseline SERIES]...] [-o FILE.md|FILE.csv|-]`: the table of
//  steps, bits and simulated
// time to each target per series, or, by bandwidth, time to target per series and bandwidth with the
// fastest series and the crossovers. See analysis/target_table.hpp and docs/workflow.md.
#include <cmath>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analysis/plot_runs.hpp"
#include "analysis/run_groups.hpp"
#include "analysis/target_table.hpp"
#include "app/commands.hpp"
#include "app/run_selection.hpp"
#include "app/table_output.hpp"
#include "common/error.hpp"

namespace sgdsim::app {
namespace {

struct TargetsArguments {
  RunSelection selection;
  std::vector<double> targets;
  std::string metric = "loss";
  bool by_bandwidth = false;
  std::string bandwidth_key = "network.link.bandwidth";
  std::vector<std::string> baselines;
  std::string relative_to;
  std::string output = "-";
};

void tabulate(const TargetsArguments& args) {
  using namespace analysis;
  const bool csv = table_is_csv(args.output);
  if (!args.by_bandwidth && !args.baselines.empty()) {
    throw InputError("--baseline compares times to target by bandwidth: add --by-bandwidth");
  }
  if (args.by_bandwidth && args.targets.size() != 1) {
    throw InputError("--by-bandwidth takes exactly one --target");
  }
  const std::vector<RunData> runs = select_runs(args.selection);
  std::set<std::string> excluded = {"seed"};
  if (args.by_bandwidth) excluded.insert(args.bandwidth_key);
  const std::vector<RunGroup> groups = series_groups(runs, args.selection.group, excluded);
  if (!args.relative_to.empty() && args.by_bandwidth) {
    throw InputError(
        "--relative-to reads targets off a series' final value; by bandwidth, give --target values");
  }
  std::vector<Target> targets;
  for (double value : args.targets) {
    if (!std::isfinite(value))
      throw InputError("--target: expected a finite value, found " + std::to_string(value));
    if (args.relative_to.empty()) {
      targets.push_back(make_target(args.metric, value));
    } else {
      if (!(value >= 0 && value < 1)) throw InputError("--relative-to: a --target is a fraction in [0, 1)");
      targets.push_back(relative_target(groups, args.relative_to, args.metric, value));
    }
  }
  std::string text;
  if (args.by_bandwidth) {
    const BandwidthTable table = bandwidth_table(groups, args.bandwidth_key, targets[0], args.baselines);
    text = csv ? bandwidth_csv(table) : bandwidth_markdown(table);
    for (std::size_t g = 0; g < table.series.size(); ++g)
      for (std::size_t b = 0; b < table.bandwidths.size(); ++b) {
        const Reach& r = table.cells[g][b];
        if (r.runs > 0 && r.reached < r.runs)
          std::fprintf(stderr, "sgdsim: targets: %s at %s did not reach %s on %zu of %zu seeds\n",
                       table.series[g].c_str(), bandwidth_text(table.bandwidths[b]).c_str(),
                       table.target.text().c_str(), r.runs - r.reached, r.runs);
      }
  } else {
    const std::vector<TargetRow> rows = target_rows(groups, targets);
    text = csv ? target_csv(rows) : target_markdown(rows);
    // A table of dashes does not say why: each target a series missed gets a line.
    for (const TargetRow& row : rows)
      if (row.reach.runs > 0 && row.reach.reached < row.reach.runs)
        std::fprintf(stderr, "sgdsim: targets: %s did not reach %s on %zu of %zu seeds\n", row.series.c_str(),
                     row.target.text().c_str(), row.reach.runs - row.reach.reached, row.reach.runs);
  }
  write_table(args.output, text, "targets", runs.size(), groups.size());
}

}  // namespace

void add_targets_command(CLI::App& root) {
  auto args = std::make_shared<TargetsArguments>();
  auto* cmd = root.add_subcommand(
      "targets",
      "Table of what it takes to reach targets: steps, payload bits and simulated seconds to the first "
      "evaluation at the target, mean [min, max] over seeds, per series (the combinations of the parameters "
      "that vary); with --by-bandwidth, time to target per series and bandwidth, the fastest series and the "
      "crossover bandwidths against --baseline series");
  add_run_selection(*cmd, args->selection);
  cmd->add_option("--target", args->targets, "Value of --metric to reach; repeatable")->required();
  cmd->add_option("--metric", args->metric,
                  "What --target is a value of: loss (train_loss, reached from above), accuracy "
                  "(test_accuracy, reached from below) or any trace column")
      ->capture_default_str();
  cmd->add_flag("--by-bandwidth", args->by_bandwidth, "One column per link bandwidth, with crossovers");
  cmd->add_option("--bandwidth-key", args->bandwidth_key, "Parameter holding the bandwidth")
      ->capture_default_str();
  cmd->add_option("--baseline", args->baselines,
                  "With --by-bandwidth: the series (a legend) every other series is compared with; "
                  "repeatable");
  cmd->add_option("--relative-to", args->relative_to,
                  "Read each --target as a fraction short of this series' final --metric on its worst seed "
                  "(the level it reaches on every seed): accuracy min final×(1 − T), loss max final×(1 + T); "
                  "e.g. --relative-to dpsgd --target 0.01");
  cmd->add_option("-o,--output", args->output, "Table file: .md (Markdown) or .csv; - for standard output")
      ->capture_default_str();
  cmd->callback([args] { tabulate(*args); });
}

}  // namespace sgdsim::app
