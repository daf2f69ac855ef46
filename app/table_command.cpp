// `sgdsim table DIR... --column C... [--step S]... [--where KEY=VALUE]... [--group KEY]... [-o
// FILE.md|.csv|-]`: trace values per series at given steps (default: the last evaluation), mean [min, max]
// over seeds. See analysis/value_table.hpp and docs/workflow.md.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/run_groups.hpp"
#include "analysis/target.hpp"
#include "analysis/value_table.hpp"
#include "app/commands.hpp"
#include "app/run_selection.hpp"
#include "app/table_output.hpp"
#include "common/error.hpp"

namespace sgdsim::app {
namespace {

struct TableArguments {
  RunSelection selection;
  std::vector<std::string> columns;
  std::vector<std::int64_t> steps;
  std::string output = "-";
};

void tabulate(const TableArguments& args) {
  using namespace analysis;
  const bool csv = table_is_csv(args.output);
  std::vector<std::string> columns;
  for (const std::string& c : args.columns) columns.push_back(trace_column(c));
  const std::vector<RunData> runs = select_runs(args.selection);
  const std::vector<RunGroup> groups = series_groups(runs, args.selection.group, {"seed"});
  const std::vector<ValueRow> rows = value_rows(groups, columns, args.steps);
  const std::string text = csv ? value_csv(rows, columns) : value_markdown(rows, columns);
  write_table(args.output, text, "table", runs.size(), groups.size());
}

}  // namespace

void add_table_command(CLI::App& root) {
  auto args = std::make_shared<TableArguments>();
  auto* cmd = root.add_subcommand("table",
                                  "Table of trace values per series (the combinations of the parameters that "
                                  "vary) at given steps, mean [min, max] over seeds: final losses and "
                                  "accuracies, bits sent, variances along training");
  add_run_selection(*cmd, args->selection);
  cmd->add_option(
         "--column", args->columns,
         "A trace column or its short name (loss, accuracy, bits, time; sgdsim docs outputs lists them); "
         "repeatable, one table column each")
      ->required();
  cmd->add_option("--step", args->steps,
                  "An evaluation step to read (repeatable, one table row per series and step); default: each "
                  "run's last evaluation");
  cmd->add_option("-o,--output", args->output, "Table file: .md (Markdown) or .csv; - for standard output")
      ->capture_default_str();
  cmd->callback([args] { tabulate(*args); });
}

}  // namespace sgdsim::app
