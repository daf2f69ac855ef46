// `sgdsim plot DIR... [--x bits|time|step|bandwidth|COLUMN] [--y loss|accuracy|...|time-to-target|COLUMN]
//  [--where KEY=VALUE]... [--group KEY]... [--target VALUE [--metric M] [--baseline SERIES]...]
//  -o FILE.png|.svg`: draws runs and sweeps with gnuplot, keeping FILE.gp and FILE.dat beside the figure.
// See analysis/plot_*.hpp and docs/workflow.md.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "analysis/plot_figure.hpp"
#include "analysis/plot_gnuplot.hpp"
#include "analysis/plot_runs.hpp"
#include "app/commands.hpp"
#include "app/run_selection.hpp"

namespace sgdsim::app {
namespace {

struct PlotArguments {
  RunSelection selection;
  std::string output;
  double target = 0;
  analysis::PlotRequest request;
};

void plot(PlotArguments& args, bool has_target) {
  using namespace analysis;
  if (has_target) args.request.target = args.target;
  args.request.group = args.selection.group;
  const std::vector<RunData> runs = select_runs(args.selection);
  const Figure figure = build_figure(runs, args.request);
  for (const auto& note : figure.notes) std::fprintf(stderr, "plot: note: %s\n", note.c_str());
  const PlotFiles files = write_gnuplot(figure, args.output);
  render_gnuplot(files);
  std::fprintf(stderr, "plot: %zu runs in %zu series -> %s (script %s, data %s)\n", runs.size(),
               figure.series.size(), files.image.c_str(), files.script.filename().c_str(),
               files.data.filename().c_str());
}

}  // namespace

void add_plot_command(CLI::App& root) {
  auto args = std::make_shared<PlotArguments>();
  auto* cmd = root.add_subcommand(
      "plot",
      "Plot runs and sweeps with gnuplot: any trace column (loss, accuracy, compression_error, ...) against "
      "bits, simulated time, steps or another column; or time to a target against bandwidth, with "
      "crossovers. Seeds are averaged (min/max band); series are the combinations of the parameters that "
      "vary. FILE.gp and FILE.dat are kept beside the figure");
  add_run_selection(*cmd, args->selection);
  cmd->add_option("-o,--output", args->output, "Figure file, .png or .svg")->required();
  cmd->add_option("--x", args->request.x,
                  "x axis: bits (log scale), time, step, bandwidth, or any trace.csv column (sgdsim docs "
                  "outputs lists the columns and their short names)")
      ->capture_default_str();
  cmd->add_option("--y", args->request.y,
                  "y axis: loss, accuracy, consensus, suboptimality, or any trace.csv column (e.g. "
                  "compression_error); time-to-target with --x bandwidth (default: loss, or "
                  "time-to-target with --x bandwidth)");
  auto* target =
      cmd->add_option("--target", args->target, "Value of --metric to reach, for --y time-to-target");
  cmd->add_option("--metric", args->request.metric,
                  "What --target is a value of: loss, accuracy (reached from below) or a trace column")
      ->capture_default_str();
  cmd->add_option("--baseline", args->request.baselines,
                  "Bandwidth plots: mark the bandwidths where each series' time to target crosses this "
                  "series' (a legend); repeatable");
  cmd->add_option("--bandwidth-key", args->request.bandwidth_key,
                  "Parameter holding the bandwidth, for --x bandwidth")
      ->capture_default_str();
  cmd->add_option("--title", args->request.title, "Figure title");
  cmd->add_flag("--log-x", args->request.log_x, "Log-scale x axis");
  cmd->add_flag("--log-y", args->request.log_y, "Log-scale y axis");
  cmd->add_flag("--linear-x", args->request.linear_x,
                "Linear x axis (the default is log for bits, bandwidth, and data spanning over two decades)");
  cmd->add_flag("--linear-y", args->request.linear_y, "Linear y axis (see --linear-x)");
  cmd->callback([args, target] { plot(*args, target->count() > 0); });
}

}  // namespace sgdsim::app
