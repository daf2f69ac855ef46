#pragma once
// Every output a run writes, declared once: each trace.csv column and each summary.json field with its name,
// unit, meaning, which runs have it, how analysis uses it, and the small function that computes its value.
// The CSV header and cells, summary.json's keys, the short names of plot/targets/table, and docs/outputs.md
// (`sgdsim docs outputs`) all come from these tables. Adding a column is one declaration here plus the code
// that computes its value (a TraceRow member filled by the observer).
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/protocols/probe.hpp"
#include "observation/trace.hpp"
#include "sim/traffic.hpp"

namespace sgdsim::observation {

// Which runs have an output (a trace column in the header, a summary.json key).
enum class When {
  always,
  failures,        // runs that can fail (network.receive_timeout > 0)
  variance_draws,  // runs that measure the estimator's variance (eval.variance_draws > 0)
  diverged,        // runs that stopped at a non-finite value
};
std::string_view when_name(When when);  // "always", "failures", ... (for tools)
std::string_view when_text(When when);  // for readers

// What a run has, of the conditions above.
struct RunShape {
  bool failures = false;
  bool variance_draws = false;
  bool diverged = false;
  bool has(When when) const;
};

// A cell: empty, an integer or a double. Written with the shortest text that reads back to the same number.
using Value = std::variant<std::monostate, std::int64_t, std::uint64_t, double>;
nlohmann::json to_json(const Value& value);  // null for an empty cell

// Whether summary.json's "final" (the last row) has the column, and so sweeps' index.csv.
enum class Final {
  no,
  core,   // a column of the analysis contract: index.csv always has it, in declaration order
  extra,  // index.csv has it when some run has it, after the core ones, in alphabetical order
};

struct Column {
  std::string name{};     // the header
  std::string unit{};     // "s", "bits", "bytes", ...; "" for a pure number
  std::string meaning{};  // one sentence for docs/outputs.md
  When when = When::always;
  std::string empty{};  // when a cell is empty ("" = never)
  // How analysis uses it.
  std::string alias{};            // short name of plot/targets/table (--x bits, --metric loss); "" none
  std::string axis{};             // plot axis label with units; "" = the name
  std::string title{};            // words for plot titles; "" = the axis label without its "(unit)"
  bool higher_is_better = false;  // a target is reached at or above its value, else at or below
  bool log_scale = false;         // plots put it on a log axis by default
  Final final = Final::no;
  std::function<Value(const TraceRow&)> value{};

  std::string axis_label() const { return axis.empty() ? name : axis; }
  std::string title_words() const;
};

// The trace.csv columns, in their order.
const std::vector<Column>& trace_columns();
// The column of a header name or of a short name (loss -> train_loss); nullptr when none is declared.
const Column* find_column(std::string_view name_or_alias);

// trace.csv: the header line and one row, for a run of that shape.
void write_trace_header(std::ostream& out, const RunShape& shape);
void write_trace_row(std::ostream& out, const TraceRow& row, const RunShape& shape);

// A summary.json field: its path ("totals.bits_sent"; "per_node[].node" for the members of an array's
// objects), unit, meaning, which runs have it, and the function computing it from what the declaring layer
// knows (C). Objects that group fields ("totals") are declared too, without a function.
template <typename C>
struct Field {
  std::string path;
  std::string unit{};
  std::string meaning{};
  When when = When::always;
  std::function<nlohmann::json(const C&)> value;
};

// An object that groups fields ("totals"): declared for its documentation, filled by its members.
template <typename C>
Field<C> group(std::string path, std::string unit, std::string meaning, When when = When::always) {
  Field<C> field;
  field.path = std::move(path);
  field.unit = std::move(unit);
  field.meaning = std::move(meaning);
  field.when = when;
  return field;
}

// The view of a Field that documentation and tests need.
struct FieldDoc {
  std::string path, unit, meaning;
  When when = When::always;
};
template <typename C>
std::vector<FieldDoc> field_docs(const std::vector<Field<C>>& fields, const std::string& prefix = {}) {
  std::vector<FieldDoc> docs;
  for (const auto& f : fields) docs.push_back({prefix + f.path, f.unit, f.meaning, f.when});
  return docs;
}

// The member of `object` at a dotted path, created (with its parents) when missing.
nlohmann::json& at_path(nlohmann::json& object, std::string_view path);

// Sets every declared field that has a function and that a run of `shape` has, at its path in `object`.
template <typename C>
void fill(nlohmann::json& object, const std::vector<Field<C>>& fields, const C& context,
          const RunShape& shape) {
  for (const auto& f : fields)
    if (f.value && shape.has(f.when)) at_path(object, f.path) = f.value(context);
}

// What the observation layer knows at the end of a run: its part of summary.json.
struct Observed {
  const TraceRow& last;                              // the last complete row
  const std::vector<protocols::NodeStats>& nodes;    // each node's totals
  double end = 0;                                    // simulated seconds when the simulation stopped
  const std::vector<sim::LinkUse>* links = nullptr;  // what each link direction carried (links.csv)
};
struct NodeTotals {
  std::size_t node = 0;
  const protocols::NodeStats& stats;
};
const std::vector<Field<Observed>>& observed_fields();  // final, totals, simulated_time_s, per_node
const std::vector<Field<NodeTotals>>& node_fields();    // the members of per_node[]
// Every summary.json path the observation layer writes (per_node's members under "per_node[].").
std::vector<FieldDoc> observed_field_docs();
// Observation's part of summary.json.
nlohmann::json observed_summary(const Observed& observed);

}  // namespace sgdsim::observation
