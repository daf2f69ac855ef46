#include "analysis/plot_figure.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "analysis/run_groups.hpp"
#include "analysis/target.hpp"
#include "analysis/target_table.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"
#include "common/units.hpp"
#include "observation/outputs.hpp"

namespace sgdsim::analysis {
namespace {

struct Quantity {
  std::string column;  // trace column
  std::string label;   // axis label, with units
  std::string title;   // words for the figure's title
  bool log_scale = false;
};

// A declared column, by its name or short name (observation/outputs.hpp), or any other trace column by its
// own name (checked against the traces when read).
Quantity quantity(const std::string& name) {
  if (const observation::Column* c = observation::find_column(name))
    return {c->name, c->axis_label(), c->title_words(), c->log_scale};
  if (name.empty()) throw InputError("plot: an empty axis name");
  return {name, name, name};
}

// The positive values of a column over all runs: how many decades they span, and the largest magnitude.
struct Span {
  double smallest = 0, largest = 0;  // of the positive values; 0 when there are none
  double decades() const { return smallest > 0 ? std::log10(largest / smallest) : 0.0; }
};
Span span_of(const std::vector<RunData>& runs, const std::string& column) {
  Span span;
  for (const auto& run : runs) {
    const auto c = run.trace.column(column);
    if (!c) continue;
    for (const auto& row : run.trace.rows) {
      const auto v = csv_number(row[*c]);
      if (!v) continue;
      span.largest = std::max(span.largest, std::fabs(*v));
      if (*v > 0 && (span.smallest == 0 || *v < span.smallest)) span.smallest = *v;
    }
  }
  if (span.smallest > 0) span.largest = std::max(span.largest, span.smallest);
  return span;
}

bool same_rows(const Series& a, const Series& b) {
  if (a.rows.size() != b.rows.size() || a.rows.empty()) return false;
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    const SeriesRow &p = a.rows[i], &q = b.rows[i];
    if (p.x != q.x || p.mean != q.mean || p.min != q.min || p.max != q.max) return false;
  }
  return true;
}

// The legend parts ("key=value", split at ", ") that every legend of `legends` has, in the first's order.
std::string common_parts(const std::vector<std::string>& legends) {
  const auto split = [](const std::string& legend) {
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
      const auto comma = legend.find(", ", start);
      parts.push_back(legend.substr(start, comma == std::string::npos ? comma : comma - start));
      if (comma == std::string::npos) return parts;
      start = comma + 2;
    }
  };
  std::string common;
  for (const std::string& part : split(legends.front())) {
    const bool everywhere = std::all_of(legends.begin() + 1, legends.end(), [&](const std::string& legend) {
      const auto parts = split(legend);
      return std::find(parts.begin(), parts.end(), part) != parts.end();
    });
    if (everywhere) common += (common.empty() ? "" : ", ") + part;
  }
  return common;
}

void merge_identical(std::vector<Series>& series, std::vector<std::string>& notes) {
  std::vector<Series> merged;
  std::vector<char> taken(series.size(), 0);
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (taken[i]) continue;
    std::vector<std::string> legends = {series[i].legend};
    for (std::size_t j = i + 1; j < series.size(); ++j) {
      if (!taken[j] && same_rows(series[i], series[j])) {
        taken[j] = 1;
        legends.push_back(series[j].legend);
      }
    }
    Series one = std::move(series[i]);
    if (legends.size() > 1) {
      const std::string common = common_parts(legends);
      std::string all;
      for (const auto& legend : legends) all += (all.empty() ? "" : "; ") + legend;
      one.legend = (common.empty() ? legends.front() + " and " + std::to_string(legends.size() - 1) + " more"
                                   : common) +
                   " (" + std::to_string(legends.size()) + " identical)";
      notes.push_back(std::to_string(legends.size()) +
                      " series are identical on these axes and drawn as one, \"" + one.legend + "\": " + all);
    }
    merged.push_back(std::move(one));
  }
  series = std::move(merged);
}

// " (did you mean \"X\"?)" for a name close to a column of the run, a short name, or bandwidth (--x).
std::string suggestion(const std::string& name, const RunData& run, bool x_axis) {
  std::vector<std::string> names = run.trace.header;
  for (const observation::Column& c : observation::trace_columns())
    if (!c.alias.empty()) names.push_back(c.alias);
  if (x_axis) names.push_back("bandwidth");
  std::string best;
  std::size_t distance = 4;  // at most 3 edits
  for (const std::string& candidate : names) {
    const std::size_t d = edit_distance(name, candidate);
    if (d < distance) {
      distance = d;
      best = candidate;
    }
  }
  return best.empty() ? std::string() : " (did you mean \"" + best + "\"?)";
}

std::string number_text(double value) {
  return fmt::format("{:g}", value);
}

SeriesRow summarise(double x, const std::vector<double>& values) {
  const Spread s = spread_of(values);
  return {x, s.mean, s.min, s.max, values.size()};
}

// Curves: rows are matched across seeds by step; x and y are averaged over the seeds at each common step.
Series curve(const RunGroup& group, const Quantity& x, const Quantity& y, bool log_x, bool log_y,
             std::vector<std::string>& notes) {
  std::map<double, std::vector<std::pair<double, double>>> by_step;
  for (const RunData* run : group.runs) {
    const std::size_t step = require_column(*run, "step");
    const std::size_t xc = require_column(*run, x.column);
    const std::size_t yc = require_column(*run, y.column);
    std::set<double> seen;
    for (const auto& row : run->trace.rows) {
      auto s = csv_number(row[step]);
      auto xv = csv_number(row[xc]);
      auto yv = csv_number(row[yc]);
      // Log axes cannot show zero (the first evaluation has sent no bits yet).
      if (!s || !xv || !yv || (log_x && *xv <= 0) || (log_y && *yv <= 0) || !seen.insert(*s).second) continue;
      by_step[*s].push_back({*xv, *yv});
    }
  }
  Series series;
  series.legend = group.legend;
  for (const auto& [step, pairs] : by_step) {
    if (pairs.size() != group.runs.size()) continue;  // a step not evaluated by every seed
    std::vector<double> xs, ys;
    for (const auto& [xv, yv] : pairs) xs.push_back(xv), ys.push_back(yv);
    series.rows.push_back(summarise(spread_of(xs).mean, ys));
  }
  if (series.rows.empty()) {
    notes.push_back(group.legend + ": no " + y.column +
                    " values to draw (empty cells, or not evaluated at common steps)");
  }
  return series;
}

// One series of a bandwidth plot from the table's row: points where every seed reached the target.
Series time_to_target(const BandwidthTable& table, std::size_t g, std::vector<std::string>& notes) {
  Series series;
  series.legend = table.series[g];
  for (std::size_t b = 0; b < table.bandwidths.size(); ++b) {
    const Reach& r = table.cells[g][b];
    if (r.runs == 0) continue;
    if (!r.seconds) {
      // An average over only the seeds that made it would flatter the method; leave the point out.
      notes.push_back(series.legend + " at " + number_text(table.bandwidths[b]) +
                      " bit/s: " + std::to_string(r.runs - r.reached) + " of " + std::to_string(r.runs) +
                      " runs never reached " + table.target.text() + "; point left out");
      continue;
    }
    series.rows.push_back({table.bandwidths[b], r.seconds->mean, r.seconds->min, r.seconds->max, r.runs});
  }
  return series;
}

}  // namespace

Figure build_figure(const std::vector<RunData>& runs, const PlotRequest& request) {
  if (runs.empty()) throw InputError("plot: no runs to draw");
  const std::string y =
      request.y.empty() ? (request.x == "bandwidth" ? "time-to-target" : "loss") : request.y;
  const bool bandwidth_plot = request.x == "bandwidth";
  if (bandwidth_plot != (y == "time-to-target")) {
    throw InputError(
        "plot: --y time-to-target goes with --x bandwidth (time to reach the target against the link "
        "bandwidth); other figures put a trace column on each axis");
  }
  if (bandwidth_plot && !request.target) {
    throw InputError("plot: --y time-to-target needs --target VALUE (the value of --metric to reach)");
  }
  if (!bandwidth_plot && !request.baselines.empty()) {
    throw InputError("plot: --baseline marks crossovers on bandwidth plots (--x bandwidth) only");
  }

  std::set<std::string> excluded = {"seed"};
  if (bandwidth_plot) excluded.insert(request.bandwidth_key);
  const std::vector<RunGroup> groups = series_groups(runs, request.group, excluded);

  Figure figure;
  if (bandwidth_plot) {
    const Target target = make_target(request.metric, *request.target);
    const BandwidthTable table = bandwidth_table(groups, request.bandwidth_key, target, request.baselines);
    figure.x_label = "link bandwidth (bit/s)";
    figure.y_label = "simulated time to reach " + target.text() + " (s)";
    figure.log_x = figure.log_y = true;
    figure.engineering_x = true;
    figure.error_bars = true;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      figure.series.push_back(time_to_target(table, g, figure.notes));
    }
    for (const auto& crossing : table.crossings) {
      // The value, and the spread of the seeds' own crossings (a crossover is as uncertain as they differ).
      std::vector<double> seeds;
      for (const auto& [seed, list] : crossing.per_seed) seeds.insert(seeds.end(), list.begin(), list.end());
      std::string spread;
      if (seeds.size() > 1) {
        const auto [lo, hi] = std::minmax_element(seeds.begin(), seeds.end());
        spread = " (seeds " + units::si_text(*lo) + "-" + units::si_text(*hi) + ")";
      }
      for (double b : crossing.crossings)
        figure.markers.push_back(
            {b, crossing.series + " = " + crossing.baseline + " at " + units::si_text(b) + "bit/s" + spread});
      if (crossing.coarse)
        figure.notes.push_back(crossing.series + " against " + crossing.baseline +
                               ": near the crossover the times differ by less than the evaluation interval; "
                               "a smaller eval.every would resolve it");
    }
    figure.title = "Time to target vs bandwidth";
  } else {
    const Quantity xq = quantity(request.x);
    const Quantity yq = quantity(y);
    for (const auto& [option, q] : {std::pair{"--x", &xq}, std::pair{"--y", &yq}}) {
      for (const auto& run : runs) {
        try {
          require_column(run, q->column);
        } catch (const InputError& e) {
          throw InputError(std::string("plot: ") + option + " " + q->column + ": " + e.what() +
                           suggestion(q->column, run, option == std::string("--x")));
        }
      }
    }
    figure.x_label = xq.label;
    figure.y_label = yq.label;
    const Span x_span = span_of(runs, xq.column), y_span = span_of(runs, yq.column);
    figure.log_x = !request.linear_x && (request.log_x || xq.log_scale || x_span.decades() > 2);
    figure.log_y = !request.linear_y && (request.log_y || yq.log_scale || y_span.decades() > 2);
    figure.engineering_x = x_span.largest >= 1e4;
    figure.engineering_y = y_span.largest >= 1e4;
    for (const auto& group : groups) {
      figure.series.push_back(curve(group, xq, yq, figure.log_x, figure.log_y, figure.notes));
    }
    // Series that coincide on both axes (bits do not depend on the bandwidth, say) would hide one another:
    // one curve stands for them all, named by what they share.
    if (request.group.empty()) merge_identical(figure.series, figure.notes);
    figure.title = yq.title + " vs " + xq.title;
    figure.title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(figure.title[0])));
  }
  if (!request.title.empty()) figure.title = request.title;
  const bool any = std::any_of(figure.series.begin(), figure.series.end(),
                               [](const Series& s) { return !s.rows.empty(); });
  if (!any) {
    std::string why;
    for (const auto& note : figure.notes) why += "\n  " + note;
    throw InputError("plot: nothing to draw" + why);
  }
  return figure;
}

}  // namespace sgdsim::analysis
