#include "analysis/plot_figure.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/keys.hpp"
#include "common/units.hpp"
#include "scenarios/scenario.hpp"

namespace sgdsim::analysis {
namespace {

struct Quantity {
  std::string column;  // trace column
  std::string label;   // axis label, with units
};

const std::map<std::string, Quantity>& x_quantities() {
  static const std::map<std::string, Quantity> table = {
      {"bits", {"bits_sent", "payload bits sent, all nodes, cumulative (bits)"}},
      {"time", {"sim_time_s", "simulated time (s)"}},
      {"step", {"step", "step (iterations)"}},
  };
  return table;
}

const std::map<std::string, Quantity>& y_quantities() {
  static const std::map<std::string, Quantity> table = {
      {"loss", {"train_loss", "training loss of the average model"}},
      {"accuracy", {"test_accuracy", "test accuracy of the average model (fraction)"}},
      {"consensus",
       {"consensus_distance", "consensus distance (mean squared distance to the average model)"}},
      {"suboptimality", {"suboptimality", "suboptimality f(average model) - f* (loss units)"}},
  };
  return table;
}

std::string number_text(double value) {
  return fmt::format("{:g}", value);
}

std::string last_segment(const std::string& path) {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

std::string shorten(const std::string& text) {
  return text.size() <= 48 ? text : text.substr(0, 45) + "...";
}

// The parameters that take more than one value among the runs.
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

struct Group {
  std::string legend;
  std::vector<const RunData*> runs;
};

std::vector<Group> group_runs(const std::vector<RunData>& runs, const std::vector<std::string>& keys) {
  std::vector<Group> groups;
  std::map<std::vector<std::string>, std::size_t> position;
  for (const auto& run : runs) {
    std::vector<std::string> values;
    for (const auto& key : keys) values.push_back(run.parameter(key).value_or(""));
    auto [it, fresh] = position.emplace(values, groups.size());
    if (fresh) {
      Group group;
      if (keys.size() == 1) {
        group.legend = shorten(values[0].empty() ? "(none)" : values[0]);
      } else {
        for (std::size_t k = 0; k < keys.size(); ++k) {
          group.legend += (k ? ", " : "") + last_segment(keys[k]) + "=" + shorten(values[k]);
        }
      }
      groups.push_back(group);
    }
    groups[it->second].runs.push_back(&run);
  }
  if (keys.empty() && !groups.empty()) {
    groups[0].legend = runs.size() == 1 ? runs[0].name : "mean of " + std::to_string(runs.size()) + " runs";
  }
  return groups;
}

std::size_t require_column(const RunData& run, const std::string& column) {
  auto c = run.trace.column(column);
  if (!c) {
    std::string known;
    for (const auto& h : run.trace.header) known += (known.empty() ? "" : ", ") + h;
    throw InputError(run.dir + "/trace.csv: no column \"" + column + "\" (it has " + known + ")");
  }
  return *c;
}

SeriesRow summarise(double x, const std::vector<double>& values) {
  SeriesRow row;
  row.x = x;
  row.runs = values.size();
  row.min = *std::min_element(values.begin(), values.end());
  row.max = *std::max_element(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  row.mean = sum / static_cast<double>(values.size());
  return row;
}

// Curves: rows are matched across seeds by step; x and y are averaged over the seeds at each common step.
Series curve(const Group& group, const Quantity& x, const Quantity& y, bool log_x, bool log_y,
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
    double xsum = 0;
    for (double v : xs) xsum += v;
    series.rows.push_back(summarise(xsum / static_cast<double>(xs.size()), ys));
  }
  if (series.rows.empty()) {
    notes.push_back(group.legend + ": no " + y.column +
                    " values to draw (empty cells, or not evaluated at common steps)");
  }
  return series;
}

double bandwidth_bits(const RunData& run, const std::string& key) {
  // The scenario's declarations say whether the key is a bandwidth, not a list of known paths.
  const keys::Key* declared = keys::find_key(scenarios::scenario_keys(), run.resolved, key);
  if (!declared || declared->type != keys::Type::bandwidth)
    throw InputError("plot: --bandwidth-key " + key +
                     " is not a bandwidth key of the scenario format (sgdsim docs "
                     "scenario lists them)");
  auto text = run.parameter(key);
  if (!text)
    throw InputError(run.dir + ": no parameter \"" + key +
                     "\" to put on the bandwidth axis (see --bandwidth-key)");
  std::optional<double> bytes = units::bandwidth(*text);
  if (!bytes) bytes = csv_number(*text);  // a plain number is bytes/s, as in scenarios
  if (!bytes || !(*bytes > 0)) {
    throw InputError(run.dir + ": " + key + " = \"" + *text + "\" is not a bandwidth such as \"100Mbps\"");
  }
  return *bytes * 8;
}

Series time_to_target(const Group& group, const std::string& key, double target,
                      std::vector<std::string>& notes) {
  std::map<double, std::vector<double>> times;
  std::map<double, std::size_t> attempts;
  for (const RunData* run : group.runs) {
    const double bandwidth = bandwidth_bits(*run, key);
    ++attempts[bandwidth];
    const std::size_t loss = require_column(*run, "train_loss");
    const std::size_t time = require_column(*run, "sim_time_s");
    for (const auto& row : run->trace.rows) {
      auto l = csv_number(row[loss]);
      auto t = csv_number(row[time]);
      if (l && t && *l <= target) {
        times[bandwidth].push_back(*t);
        break;
      }
    }
  }
  Series series;
  series.legend = group.legend;
  for (const auto& [bandwidth, count] : attempts) {
    const auto& reached = times[bandwidth];
    if (reached.size() < count) {
      // An average over only the seeds that made it would flatter the method; leave the point out.
      notes.push_back(group.legend + " at " + number_text(bandwidth) +
                      " bit/s: " + std::to_string(count - reached.size()) + " of " + std::to_string(count) +
                      " runs never reached training loss " + number_text(target) + "; point left out");
      continue;
    }
    series.rows.push_back(summarise(bandwidth, reached));
  }
  return series;
}

}  // namespace

const std::vector<std::string>& plot_x_choices() {
  static const std::vector<std::string> choices = {"bits", "time", "step", "bandwidth"};
  return choices;
}

const std::vector<std::string>& plot_y_choices() {
  static const std::vector<std::string> choices = {"loss", "accuracy", "consensus", "suboptimality",
                                                   "time-to-target"};
  return choices;
}

Figure build_figure(const std::vector<RunData>& runs, const PlotRequest& request) {
  if (runs.empty()) throw InputError("plot: no runs to draw");
  const std::string y =
      request.y.empty() ? (request.x == "bandwidth" ? "time-to-target" : "loss") : request.y;
  const bool bandwidth_plot = request.x == "bandwidth";
  if (bandwidth_plot != (y == "time-to-target")) {
    throw InputError(
        "plot: --y time-to-target goes with --x bandwidth (time to reach the target loss against the "
        "link bandwidth); other figures use --x bits, time or step");
  }
  if (bandwidth_plot && !request.target) {
    throw InputError("plot: --y time-to-target needs --target LOSS (the training loss to reach)");
  }
  if (!bandwidth_plot && !x_quantities().count(request.x)) throw InputError("plot: unknown --x " + request.x);
  if (!bandwidth_plot && !y_quantities().count(y)) throw InputError("plot: unknown --y " + y);

  std::vector<std::string> keys = request.group;
  if (keys.empty()) {
    std::set<std::string> excluded = {"seed"};
    if (bandwidth_plot) excluded.insert(request.bandwidth_key);
    keys = varied_parameters(runs, excluded);
  } else {
    for (const auto& key : keys) {
      const bool known =
          std::any_of(runs.begin(), runs.end(), [&](const RunData& r) { return r.parameter(key); });
      if (!known) {
        throw InputError("plot: --group " + key +
                         ": no run has this parameter (use an index column or a dotted "
                         "scenario path such as algorithm.kind)");
      }
    }
  }
  const std::vector<Group> groups = group_runs(runs, keys);

  Figure figure;
  if (bandwidth_plot) {
    figure.x_label = "link bandwidth (bit/s)";
    figure.y_label = "simulated time to reach training loss " + number_text(*request.target) + " (s)";
    figure.log_x = figure.log_y = true;
    figure.error_bars = true;
    for (const auto& group : groups) {
      figure.series.push_back(time_to_target(group, request.bandwidth_key, *request.target, figure.notes));
    }
    figure.title = "Time to target loss vs bandwidth";
  } else {
    const Quantity& xq = x_quantities().at(request.x);
    const Quantity& yq = y_quantities().at(y);
    figure.x_label = xq.label;
    figure.y_label = yq.label;
    figure.log_x = request.x == "bits";
    figure.log_y = request.log_y || y == "consensus" || y == "suboptimality";
    for (const auto& group : groups) {
      figure.series.push_back(curve(group, xq, yq, figure.log_x, figure.log_y, figure.notes));
    }
    figure.title = (y == "loss" ? std::string("Training loss") : yq.label.substr(0, yq.label.find(" (")));
    figure.title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(figure.title[0])));
    figure.title += " vs " + (request.x == "bits"   ? std::string("bits sent")
                              : request.x == "time" ? "simulated time"
                                                    : "step");
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
