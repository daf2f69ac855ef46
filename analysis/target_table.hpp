#pragma once
// Tables of what it takes to reach a target — steps, payload bits and simulated seconds, mean [min, max] over
// seeds — per series, and for bandwidth sweeps per series and bandwidth with the fastest series per bandwidth
// and the bandwidths where a series' time to target crosses a baseline's (log-log interpolation between
// neighbouring grid bandwidths). A series where some seed never reaches the target is reported as not
// reached (k of n seeds), never averaged over the lucky seeds. Written as Markdown or CSV.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_groups.hpp"
#include "analysis/target.hpp"

namespace sgdsim::analysis {

struct Spread {
  double mean = 0;
  double min = 0;
  double max = 0;
};
// Of a non-empty list.
Spread spread_of(const std::vector<double>& values);
// "mean [min, max]" (just the mean when all agree) with fmt `format`; "–" when unknown.
std::string spread_text(const std::optional<Spread>& spread, const char* format);
// mean, min, max cells for CSV (empty when unknown).
std::vector<std::string> spread_cells(const std::optional<Spread>& spread);

struct Reach {
  std::size_t runs = 0;
  std::size_t reached = 0;
  std::optional<Spread> steps, bits, seconds;  // set when every run reached the target
  // Per seed that reached it: the simulated seconds to the target, and the simulated seconds between that
  // evaluation and the one before (the time is only known to within that interval).
  std::map<std::int64_t, double> seconds_by_seed, interval_by_seed;
};

struct TargetRow {
  std::string series;
  Target target;
  Reach reach;
  std::optional<Spread> final_value;  // the target's metric at each run's last evaluation
};

struct Crossing {
  std::string series;
  std::string baseline;
  std::vector<double> faster_at;  // grid bandwidths (bit/s) where the series reaches the target sooner
  std::vector<double> crossings;  // interpolated bandwidths where the two times are equal
  // The same for each seed both series ran (in seed order), with its crossings; empty when the seeds do not
  // match.
  std::vector<std::pair<std::int64_t, std::vector<double>>> per_seed;
  // Crossings between grid bandwidths where the two times differ by less than the evaluation interval: the
  // trace is too coarse to say which is faster there (a finer eval.every would).
  bool coarse = false;
};

struct BandwidthTable {
  Target target;
  std::vector<double> bandwidths;  // bit/s, ascending
  std::vector<std::string> series;
  std::vector<std::vector<Reach>> cells;  // [series][bandwidth]
  std::vector<std::string> fastest;       // per bandwidth; empty when no series reached the target
  std::vector<Crossing> crossings;        // every series against every baseline
};

Reach reach_of(const std::vector<const RunData*>& runs, const Target& target);

std::vector<TargetRow> target_rows(const std::vector<RunGroup>& groups, const std::vector<Target>& targets);

// The metric at each run's last evaluation that has a value (a diverged run's trace simply ends), over the
// runs; nullopt when none has one.
std::optional<Spread> final_values(const std::vector<const RunData*>& runs, const std::string& column);

// The target `fraction` short of series `baseline`'s final value of `metric` on its worst run (the level it
// reaches on every seed): for metrics reached from below (accuracy) min final·(1 − fraction), for the others
// max final·(1 + fraction); e.g. 0.01 for "within 1 % of full-precision D-PSGD's final accuracy". InputError
// for an unknown series.
Target relative_target(const std::vector<RunGroup>& groups, const std::string& baseline,
                       const std::string& metric, double fraction);

// `groups` must not be split by the bandwidth (group by everything else). InputError for a baseline that is
// not a series legend.
BandwidthTable bandwidth_table(const std::vector<RunGroup>& groups, const std::string& bandwidth_key,
                               const Target& target, const std::vector<std::string>& baselines);

// Bandwidths (same unit as `bandwidths`) where series/baseline time crosses 1; times are mean seconds,
// nullopt where not reached; only neighbouring grid points where both are known are interpolated.
std::vector<double> crossing_bandwidths(const std::vector<double>& bandwidths,
                                        const std::vector<std::optional<double>>& baseline,
                                        const std::vector<std::optional<double>>& series);

std::string target_markdown(const std::vector<TargetRow>& rows);
std::string target_csv(const std::vector<TargetRow>& rows);
std::string bandwidth_markdown(const BandwidthTable& table);
// " (per seed A to B: seed 1: ...; seed 2: ...)" and the evaluation-interval caveat, for a crossing's text.
std::string crossing_spread_text(const Crossing& crossing);
std::string bandwidth_csv(const BandwidthTable& table);

// "1.5 Gbps"
std::string bandwidth_text(double bits_per_second);

}  // namespace sgdsim::analysis
