#include "analysis/value_table.hpp"

#include <fmt/format.h>

#include "analysis/csv_table.hpp"
#include "analysis/target.hpp"

namespace sgdsim::analysis {
namespace {

// The row of `run` at `step`, or its last row; nullopt when it has no such row.
std::optional<std::size_t> row_at(const RunData& run, std::optional<std::int64_t> step) {
  if (run.trace.rows.empty()) return std::nullopt;
  if (!step) return run.trace.rows.size() - 1;
  for (std::size_t r = 0; r < run.trace.rows.size(); ++r) {
    if (trace_value(run, r, "step") == static_cast<double>(*step)) return r;
  }
  return std::nullopt;
}

std::string step_text(const ValueRow& row) {
  return row.step ? std::to_string(*row.step) : "last";
}

}  // namespace

std::vector<ValueRow> value_rows(const std::vector<RunGroup>& groups, const std::vector<std::string>& columns,
                                 const std::vector<std::int64_t>& steps) {
  std::vector<std::optional<std::int64_t>> at;
  for (std::int64_t s : steps) at.emplace_back(s);
  if (at.empty()) at.emplace_back(std::nullopt);
  // A column some runs lack (e.g. the failure columns of runs without failures) is missing there; a column
  // no run has is a mistake.
  for (const std::string& column : columns) {
    bool anywhere = false;
    for (const RunGroup& group : groups)
      for (const RunData* run : group.runs) anywhere = anywhere || run->trace.column(column).has_value();
    if (!anywhere && !groups.empty() && !groups.front().runs.empty())
      require_column(*groups.front().runs.front(), column);
  }
  std::vector<ValueRow> rows;
  for (const RunGroup& group : groups) {
    for (const auto& step : at) {
      ValueRow row{group.legend, step, {}};
      for (const std::string& column : columns) {
        ValueCell cell;
        std::vector<double> values;
        for (const RunData* run : group.runs) {
          ++cell.runs;
          const auto r = row_at(*run, step);
          if (!r || !run->trace.column(column)) continue;
          if (const auto v = trace_value(*run, *r, column)) values.push_back(*v);
        }
        cell.present = values.size();
        if (!values.empty() && values.size() == cell.runs) cell.value = spread_of(values);
        row.cells.push_back(cell);
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::string value_markdown(const std::vector<ValueRow>& rows, const std::vector<std::string>& columns) {
  std::string out =
      "Values at the given step, mean [min, max] over seeds; '–' when some seed has no value there "
      "(k/n: seeds with one).\n\n| series | step |";
  std::string rule = "|---|---|";
  for (const std::string& column : columns) {
    out += fmt::format(" {} |", column);
    rule += "---|";
  }
  out += fmt::format("\n{}\n", rule);
  for (const ValueRow& row : rows) {
    out += fmt::format("| {} | {} |", row.series, step_text(row));
    for (const ValueCell& cell : row.cells) {
      out += fmt::format(" {}", spread_text(cell.value, "{:.4g}"));
      if (!cell.value) out += fmt::format(" ({}/{})", cell.present, cell.runs);
      out += " |";
    }
    out += "\n";
  }
  return out;
}

std::string value_csv(const std::vector<ValueRow>& rows, const std::vector<std::string>& columns) {
  std::vector<std::string> header = {"series", "step"};
  for (const std::string& column : columns) {
    for (const char* part : {"_mean", "_min", "_max", "_seeds"}) header.push_back(column + part);
  }
  std::string out = csv_line(header);
  for (const ValueRow& row : rows) {
    std::vector<std::string> line = {row.series, step_text(row)};
    for (const ValueCell& cell : row.cells) {
      for (auto& c : spread_cells(cell.value)) line.push_back(std::move(c));
      line.push_back(std::to_string(cell.present));
    }
    out += csv_line(line);
  }
  return out;
}

}  // namespace sgdsim::analysis
