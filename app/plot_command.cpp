// `sgdsim plot DIR... [--x bits|time|step|bandwidth] [--y
// loss|accuracy|consensus|suboptimality|time-to-target]
//  [--group KEY]... [--target LOSS] -o FILE.png|.svg`: draws runs and sweeps with gnuplot, keeping FILE.gp
//  and
// FILE.dat beside the figure. See analysis/plot_*.hpp and docs/workflow.md.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "analysis/plot_figure.hpp"
#include "analysis/plot_gnuplot.hpp"
#include "analysis/plot_runs.hpp"
#include "app/commands.hpp"

namespace sgdsim::app {
namespace {

struct PlotArguments {
  std::vector<std::string> dirs;
  std::string output;
  double target = 0;
  analysis::PlotRequest request;
};

void plot(PlotArguments& args, bool has_target) {
  using namespace analysis;
  if (has_target) args.request.target = args.target;
  const std::vector<RunData> runs = collect_runs(args.dirs);
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
      "Plot runs and sweeps with gnuplot: loss (or accuracy, consensus, suboptimality) against bits, "
      "simulated time "
      "or steps; or time to a target loss against bandwidth. Seeds are averaged (min/max band); series are "
      "the "
      "combinations of the parameters that vary. FILE.gp and FILE.dat are kept beside the figure");
  cmd->add_option("dirs", args->dirs, "Run folders and sweep folders")->required();
  cmd->add_option("-o,--output", args->output, "Figure file, .png or .svg")->required();
  cmd->add_option("--x", args->request.x, "x axis: bits (log scale), time, step, or bandwidth")
      ->check(CLI::IsMember(analysis::plot_x_choices()))
      ->capture_default_str();
  cmd->add_option("--y", args->request.y,
                  "y axis: loss, accuracy, consensus, suboptimality; time-to-target with --x bandwidth "
                  "(default: loss, or time-to-target with --x bandwidth)")
      ->check(CLI::IsMember(analysis::plot_y_choices()));
  cmd->add_option(
      "--group", args->request.group,
      "Group runs by this parameter (an index column or dotted scenario path); repeatable. Default: "
      "every parameter that varies, except the seed");
  auto* target = cmd->add_option("--target", args->target, "Training loss to reach, for --y time-to-target");
  cmd->add_option("--bandwidth-key", args->request.bandwidth_key,
                  "Parameter holding the bandwidth, for --x bandwidth")
      ->capture_default_str();
  cmd->add_option("--title", args->request.title, "Figure title");
  cmd->add_flag("--log-y", args->request.log_y, "Log-scale y axis");
  cmd->callback([args, target] { plot(*args, target->count() > 0); });
}

}  // namespace sgdsim::app
