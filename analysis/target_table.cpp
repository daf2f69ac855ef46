#include "analysis/target_table.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "analysis/csv_table.hpp"
#include "common/error.hpp"

namespace sgdsim::analysis {
namespace {

std::string reached_text(const Reach& r) {
  return std::to_string(r.reached) + "/" + std::to_string(r.runs);
}

}  // namespace

std::string spread_text(const std::optional<Spread>& s, const char* format) {
  if (!s) return "–";
  const auto one = [&](double v) { return fmt::format(fmt::runtime(format), v); };
  if (s->min == s->max) return one(s->mean);
  return one(s->mean) + " [" + one(s->min) + ", " + one(s->max) + "]";
}

std::vector<std::string> spread_cells(const std::optional<Spread>& s) {
  if (!s) return {"", "", ""};
  const auto g = [](double v) { return fmt::format("{:.10g}", v); };
  return {g(s->mean), g(s->min), g(s->max)};
}

Spread spread_of(const std::vector<double>& values) {
  Spread s;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  return s;
}

Reach reach_of(const std::vector<const RunData*>& runs, const Target& target) {
  Reach reach;
  reach.runs = runs.size();
  std::vector<double> steps, bits, seconds;
  for (const RunData* run : runs) {
    const auto row = first_reaching_row(*run, target);
    if (!row) continue;
    ++reach.reached;
    steps.push_back(trace_value(*run, *row, "step").value_or(NAN));
    bits.push_back(trace_value(*run, *row, "bits_sent").value_or(NAN));
    seconds.push_back(trace_value(*run, *row, "sim_time_s").value_or(NAN));
    // Runs without a seed (no resolved scenario) count as seed 0.
    const std::int64_t seed = run->seed.value_or(0);
    reach.seconds_by_seed[seed] = seconds.back();
    reach.interval_by_seed[seed] =
        *row > 0 ? seconds.back() - trace_value(*run, *row - 1, "sim_time_s").value_or(0.0) : 0.0;
  }
  if (reach.runs > 0 && reach.reached == reach.runs) {
    reach.steps = spread_of(steps);
    reach.bits = spread_of(bits);
    reach.seconds = spread_of(seconds);
  }
  return reach;
}

std::optional<Spread> final_values(const std::vector<const RunData*>& runs, const std::string& column) {
  std::vector<double> finals;
  for (const RunData* run : runs) {
    const std::size_t c = require_column(*run, column);
    // The last row that has a value: a diverged run's trace simply ends.
    for (auto r = run->trace.rows.rbegin(); r != run->trace.rows.rend(); ++r) {
      if (auto v = csv_number((*r)[c])) {
        finals.push_back(*v);
        break;
      }
    }
  }
  if (finals.empty()) return std::nullopt;
  return spread_of(finals);
}

std::vector<TargetRow> target_rows(const std::vector<RunGroup>& groups, const std::vector<Target>& targets) {
  std::vector<TargetRow> rows;
  for (const auto& target : targets) {
    for (const auto& group : groups)
      rows.push_back(
          {group.legend, target, reach_of(group.runs, target), final_values(group.runs, target.column)});
  }
  return rows;
}

Target relative_target(const std::vector<RunGroup>& groups, const std::string& baseline,
                       const std::string& metric, double fraction) {
  Target target = make_target(metric, 0);
  const auto group =
      std::find_if(groups.begin(), groups.end(), [&](const RunGroup& g) { return g.legend == baseline; });
  if (group == groups.end()) {
    std::string known;
    for (const RunGroup& g : groups) known += (known.empty() ? "" : ", ") + g.legend;
    throw InputError("--relative-to: no series \"" + baseline + "\" among the runs (series: " + known + ")");
  }
  const std::optional<Spread> final = final_values(group->runs, target.column);
  if (!final) throw InputError("--relative-to: series \"" + baseline + "\" has no value of " + target.column);
  // The worst seed's final value: the level the baseline reaches on every seed, so that the baseline itself
  // reaches every relative target.
  target.value = target.upward ? final->min * (1 - fraction) : final->max * (1 + fraction);
  return target;
}

std::vector<double> crossing_bandwidths(const std::vector<double>& bandwidths,
                                        const std::vector<std::optional<double>>& baseline,
                                        const std::vector<std::optional<double>>& series) {
  std::vector<double> found;
  for (std::size_t i = 0; i + 1 < bandwidths.size(); ++i) {
    if (!baseline[i] || !baseline[i + 1] || !series[i] || !series[i + 1]) continue;
    const double r0 = std::log(*series[i] / *baseline[i]);
    const double r1 = std::log(*series[i + 1] / *baseline[i + 1]);
    if ((r0 < 0 && r1 >= 0) || (r0 > 0 && r1 <= 0)) {
      const double f = r0 / (r0 - r1);
      found.push_back(
          std::exp(std::log(bandwidths[i]) + f * (std::log(bandwidths[i + 1]) - std::log(bandwidths[i]))));
    }
  }
  return found;
}

BandwidthTable bandwidth_table(const std::vector<RunGroup>& groups, const std::string& bandwidth_key,
                               const Target& target, const std::vector<std::string>& baselines) {
  BandwidthTable table;
  table.target = target;
  std::map<double, std::size_t> column;
  std::vector<std::map<double, std::vector<const RunData*>>> by_bandwidth(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    table.series.push_back(groups[g].legend);
    for (const RunData* run : groups[g].runs) {
      const double b = bandwidth_bits(*run, bandwidth_key);
      by_bandwidth[g][b].push_back(run);
      column.emplace(b, 0);
    }
  }
  for (auto& [b, position] : column) {
    position = table.bandwidths.size();
    table.bandwidths.push_back(b);
  }
  table.cells.assign(groups.size(), std::vector<Reach>(table.bandwidths.size()));
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const auto& [b, runs] : by_bandwidth[g]) table.cells[g][column.at(b)] = reach_of(runs, target);
  }
  const auto mean_seconds = [&](std::size_t g) {
    std::vector<std::optional<double>> out;
    for (const auto& cell : table.cells[g]) {
      out.push_back(cell.seconds ? std::optional<double>(cell.seconds->mean) : std::nullopt);
    }
    return out;
  };
  for (std::size_t b = 0; b < table.bandwidths.size(); ++b) {
    std::optional<std::pair<double, std::string>> best;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const auto& s = table.cells[g][b].seconds;
      if (s && (!best || s->mean < best->first)) best = std::make_pair(s->mean, table.series[g]);
    }
    table.fastest.push_back(best ? best->second : "");
  }
  for (const auto& baseline : baselines) {
    const auto at = std::find(table.series.begin(), table.series.end(), baseline);
    if (at == table.series.end()) {
      std::string known;
      for (const auto& s : table.series) known += (known.empty() ? "" : ", ") + s;
      throw InputError("--baseline " + baseline + ": no such series (the series are: " + known + ")");
    }
    const auto base = mean_seconds(static_cast<std::size_t>(at - table.series.begin()));
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (table.series[g] == baseline) continue;
      const auto mine = mean_seconds(g);
      const std::size_t base_g = static_cast<std::size_t>(at - table.series.begin());
      Crossing crossing;
      crossing.series = table.series[g];
      crossing.baseline = baseline;
      crossing.crossings = crossing_bandwidths(table.bandwidths, base, mine);
      for (std::size_t b = 0; b < table.bandwidths.size(); ++b) {
        if (mine[b] && base[b] && *mine[b] < *base[b]) crossing.faster_at.push_back(table.bandwidths[b]);
      }
      // Each seed's own crossings: the spread of a crossover, not one point from averaged times.
      std::set<std::int64_t> seeds;
      for (const auto& cell : table.cells[g])
        for (const auto& [seed, seconds] : cell.seconds_by_seed) seeds.insert(seed);
      for (const std::int64_t seed : seeds) {
        const auto times = [&](std::size_t series) {
          std::vector<std::optional<double>> out;
          for (const auto& cell : table.cells[series]) {
            const auto it = cell.seconds_by_seed.find(seed);
            out.push_back(it == cell.seconds_by_seed.end() ? std::nullopt
                                                           : std::optional<double>(it->second));
          }
          return out;
        };
        crossing.per_seed.push_back({seed, crossing_bandwidths(table.bandwidths, times(base_g), times(g))});
      }
      // Near a crossing the two times are close; if closer than the evaluation interval, the trace cannot
      // tell them apart there.
      for (std::size_t b = 0; b + 1 < table.bandwidths.size(); ++b) {
        if (!mine[b] || !base[b] || !mine[b + 1] || !base[b + 1]) continue;
        if (crossing_bandwidths({table.bandwidths[b], table.bandwidths[b + 1]}, {base[b], base[b + 1]},
                                {mine[b], mine[b + 1]})
                .empty())
          continue;
        for (const std::size_t k : {b, b + 1}) {
          double interval = 0;
          for (const std::size_t s : {g, base_g})
            for (const auto& [seed, dt] : table.cells[s][k].interval_by_seed)
              interval = std::max(interval, dt);
          if (std::fabs(*mine[k] - *base[k]) < interval) crossing.coarse = true;
        }
      }
      table.crossings.push_back(std::move(crossing));
    }
  }
  return table;
}

std::string bandwidth_text(double bps) {
  for (const auto& [unit, scale] : {std::pair{"Tbps", 1e12}, {"Gbps", 1e9}, {"Mbps", 1e6}, {"kbps", 1e3}}) {
    if (bps >= scale) return fmt::format("{:.3g} {}", bps / scale, unit);
  }
  return fmt::format("{:.3g} bps", bps);
}

std::string target_markdown(const std::vector<TargetRow>& rows) {
  std::string out =
      "Steps, payload bits and simulated seconds to the first evaluation that reaches the target: mean [min, "
      "max] over seeds; '–' when some seed never reached it.\n\n"
      "| series | target | seeds reached | steps | bits sent | simulated s | final value |\n"
      "|---|---|---|---|---|---|---|\n";
  for (const auto& row : rows) {
    out += "| " + row.series + " | " + row.target.text() + " | " + reached_text(row.reach) + " | " +
           spread_text(row.reach.steps, "{:.0f}") + " | " + spread_text(row.reach.bits, "{:.3g}") + " | " +
           spread_text(row.reach.seconds, "{:.3g}") + " | " + spread_text(row.final_value, "{:.4g}") + " |\n";
  }
  return out;
}

std::string target_csv(const std::vector<TargetRow>& rows) {
  std::string out = csv_line({"series", "column", "direction", "target", "runs", "reached", "steps_mean",
                              "steps_min", "steps_max", "bits_mean", "bits_min", "bits_max", "seconds_mean",
                              "seconds_min", "seconds_max", "final_mean", "final_min", "final_max"});
  for (const auto& row : rows) {
    std::vector<std::string> cells = {row.series,
                                      row.target.column,
                                      row.target.upward ? ">=" : "<=",
                                      fmt::format("{:.10g}", row.target.value),
                                      std::to_string(row.reach.runs),
                                      std::to_string(row.reach.reached)};
    for (const auto* s : {&row.reach.steps, &row.reach.bits, &row.reach.seconds, &row.final_value}) {
      for (auto& c : spread_cells(*s)) cells.push_back(std::move(c));
    }
    out += csv_line(cells);
  }
  return out;
}

std::string bandwidth_markdown(const BandwidthTable& table) {
  std::string out = fmt::format(
      "Simulated seconds to {}: mean [min, max] over seeds; '–' when some seed never reached it.\n\n| series "
      "|",
      table.target.text());
  std::string rule = "|---|";
  for (double b : table.bandwidths) out += fmt::format(" {} |", bandwidth_text(b)), rule += "---|";
  out += fmt::format("\n{}\n", rule);
  for (std::size_t g = 0; g < table.series.size(); ++g) {
    out += fmt::format("| {} |", table.series[g]);
    for (const auto& cell : table.cells[g]) out += fmt::format(" {} |", spread_text(cell.seconds, "{:.3g}"));
    out += "\n";
  }
  out += "| **fastest** |";
  for (const auto& f : table.fastest) out += f.empty() ? std::string(" – |") : fmt::format(" **{}** |", f);
  out += "\n";
  if (!table.crossings.empty()) {
    out += "\n| series | baseline | faster at | crossover bandwidth(s) |\n|---|---|---|---|\n";
    for (const auto& c : table.crossings) {
      std::string faster, cross;
      for (double b : c.faster_at)
        faster += fmt::format("{}{}", faster.empty() ? "" : ", ", bandwidth_text(b));
      for (double b : c.crossings)
        cross += fmt::format("{}≈ {}", cross.empty() ? "" : ", ", bandwidth_text(b));
      if (!c.crossings.empty()) cross += crossing_spread_text(c);
      out += fmt::format("| {} | {} | {} | {} |\n", c.series, c.baseline,
                         faster.empty() ? "none of the grid" : faster,
                         cross.empty() ? "no crossing in the grid" : cross);
    }
  }
  return out;
}

std::string crossing_spread_text(const Crossing& c) {
  std::string text;
  std::vector<double> all;
  std::string seeds;
  for (const auto& [seed, crossings] : c.per_seed) {
    std::string list;
    for (double b : crossings) {
      list += (list.empty() ? "" : " and ") + bandwidth_text(b);
      all.push_back(b);
    }
    seeds += fmt::format("{}seed {}: {}", seeds.empty() ? "" : "; ", seed, list.empty() ? "none" : list);
  }
  if (!all.empty()) {
    const auto [lo, hi] = std::minmax_element(all.begin(), all.end());
    text += fmt::format(" (per seed {} to {}: {})", bandwidth_text(*lo), bandwidth_text(*hi), seeds);
  }
  if (c.coarse)
    text +=
        " (the two times differ there by less than the evaluation interval: a smaller eval.every would "
        "resolve it)";
  return text;
}

std::string bandwidth_csv(const BandwidthTable& table) {
  std::string out = csv_line({"series", "bandwidth_bps", "column", "direction", "target", "runs", "reached",
                              "seconds_mean", "seconds_min", "seconds_max", "bits_mean", "steps_mean"});
  for (std::size_t g = 0; g < table.series.size(); ++g) {
    for (std::size_t b = 0; b < table.bandwidths.size(); ++b) {
      const Reach& r = table.cells[g][b];
      if (r.runs == 0) continue;
      std::vector<std::string> cells = {table.series[g],
                                        fmt::format("{:.10g}", table.bandwidths[b]),
                                        table.target.column,
                                        table.target.upward ? ">=" : "<=",
                                        fmt::format("{:.10g}", table.target.value),
                                        std::to_string(r.runs),
                                        std::to_string(r.reached)};
      for (auto& c : spread_cells(r.seconds)) cells.push_back(std::move(c));
      cells.push_back(spread_cells(r.bits)[0]);
      cells.push_back(spread_cells(r.steps)[0]);
      out += csv_line(cells);
    }
  }
  return out;
}

}  // namespace sgdsim::analysis
