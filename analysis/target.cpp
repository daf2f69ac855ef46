#include "analysis/target.hpp"

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/keys.hpp"
#include "common/units.hpp"
#include "observation/outputs.hpp"
#include "scenarios/wiring/scenario.hpp"

namespace sgdsim::analysis {

std::string Target::text() const {
  return column + (upward ? " >= " : " <= ") + fmt::format("{:g}", value);
}

std::string trace_column(const std::string& name) {
  const observation::Column* declared = observation::find_column(name);
  return declared ? declared->name : name;
}

Target make_target(const std::string& metric, double value) {
  Target target;
  const observation::Column* declared = observation::find_column(metric);
  target.column = declared ? declared->name : metric;
  target.value = value;
  target.upward = declared && declared->higher_is_better;
  return target;
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

std::optional<double> trace_value(const RunData& run, std::size_t row, const std::string& column) {
  return csv_number(run.trace.rows.at(row)[require_column(run, column)]);
}

std::optional<std::size_t> first_reaching_row(const RunData& run, const Target& target) {
  const std::size_t c = require_column(run, target.column);
  for (std::size_t r = 0; r < run.trace.rows.size(); ++r) {
    const auto v = csv_number(run.trace.rows[r][c]);
    if (v && (target.upward ? *v >= target.value : *v <= target.value)) return r;
  }
  return std::nullopt;
}

double bandwidth_bits(const RunData& run, const std::string& key) {
  // The scenario's declarations say whether the key is a bandwidth, not a list of known paths.
  const keys::Key* declared = keys::find_key(scenarios::scenario_keys(), run.resolved, key);
  if (!declared || declared->type != keys::Type::bandwidth)
    throw InputError("--bandwidth-key " + key +
                     " is not a bandwidth key of the scenario format (sgdsim docs scenario lists them)");
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

}  // namespace sgdsim::analysis
