#pragma once
// What a plot shows, independent of how it is drawn: curves of one trace column against another (named
// quantities such as loss or bits, or any column of trace.csv; one curve per group of runs, seeds averaged
// with a min/max band), or, for a bandwidth sweep, the simulated time to reach a target against the link
// bandwidth (one line per group, error bars from min to max over seeds, crossovers with baseline series
// marked). Groups are the distinct combinations of the parameters that vary between the runs (seed excluded,
// and the bandwidth itself for a bandwidth plot), unless --group names them; legends are made from those
// parameters.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analysis/plot_runs.hpp"

namespace sgdsim::analysis {

struct PlotRequest {
  std::string x = "bits";          // bandwidth, or a trace column by its name or short name (bits, time, ...)
  std::string y;                   // time-to-target, or a trace column (loss, accuracy, ...); empty: by x
  std::vector<std::string> group;  // grouping parameters; empty: all that vary
  std::optional<double> target;    // target value of time-to-target
  std::string metric = "loss";     // what the target is a value of (see make_target in analysis/target.hpp)
  std::vector<std::string> baselines;  // bandwidth plots: mark where other series' times cross these series'
  std::string bandwidth_key = "network.link.bandwidth";
  std::string title;
  // Force a log axis; the default is log for bandwidth, time-to-target, the columns declared so (bits_sent,
  // consensus_distance, suboptimality: observation/outputs.hpp), and any axis whose positive values span
  // more than two decades. linear_x / linear_y force a linear axis instead.
  bool log_x = false;
  bool log_y = false;
  bool linear_x = false;
  bool linear_y = false;
};

struct SeriesRow {
  double x = 0;
  double mean = 0;
  double min = 0;
  double max = 0;
  std::size_t runs = 0;  // how many seeds the row averages
};

struct Series {
  std::string legend;
  std::vector<SeriesRow> rows;
  bool points = false;  // a scatter of (x, mean), not a curve
};

// A vertical line at x (a crossover), labelled.
struct Marker {
  double x = 0;
  std::string label;
};

struct Figure {
  std::string title;
  std::string x_label;
  std::string y_label;
  bool log_x = false;
  bool log_y = false;
  bool error_bars = false;  // points with error bars (bandwidth plots) instead of curves with bands
  // Tick labels with SI prefixes (1G, 100M) instead of exponents: axes whose values reach 10^4.
  bool engineering_x = false;
  bool engineering_y = false;
  std::vector<Series> series;
  std::vector<Marker> markers;
  std::vector<std::string> notes;  // what was left out and why, for the user
};

// Validates the request (InputError for impossible combinations or missing columns) and computes the figure.
Figure build_figure(const std::vector<RunData>& runs, const PlotRequest& request);

}  // namespace sgdsim::analysis
