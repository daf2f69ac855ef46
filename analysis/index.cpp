#include "analysis/index.hpp"

#include <algorithm>
#include <set>

#include "analysis/csv_table.hpp"
#include "common/atomic_file.hpp"
#include "observation/outputs.hpp"

namespace sgdsim::analysis {
namespace {

std::string cell(const json& value) {
  if (value.is_null()) return {};
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

}  // namespace

const std::vector<std::string>& core_columns() {
  static const std::vector<std::string> columns = [] {
    std::vector<std::string> names;
    for (const auto& column : observation::trace_columns())
      if (column.final == observation::Final::core) names.push_back(column.name);
    return names;
  }();
  return columns;
}

std::string index_csv(const Sweep& sweep, const std::vector<SweepPoint>& points, const SweepLayout& layout,
                      IndexTally* tally) {
  struct Row {
    std::string status;
    json final;
    std::string timing;        // "live" or "retimed" for a complete run
    std::string retimed_from;  // the id of the run it was re-timed from
  };
  std::vector<Row> rows;
  std::vector<std::string> unreadable;
  std::set<std::string> extra;
  const auto& fixed = core_columns();
  for (const auto& point : points) {
    Row row;
    std::string text;
    if (read_file(layout.summary(point.id), text)) {
      try {
        const json summary = json::parse(text);
        row.final = summary.at("final");
        // A diverged run is complete: its figures are those of the last row before the divergence, none
        // (final null, empty cells) when it diverged before its first row.
        const auto status = summary.find("status");
        row.status = status != summary.end() && *status == "diverged" ? "diverged" : "ok";
        if (row.final.is_null() && row.status == "diverged") row.final = json::object();
        if (!row.final.is_object()) throw std::runtime_error("final is not an object");
        row.timing = "live";
        std::string provenance;
        if (read_file(layout.run_dir(point.id) / "retimed.json", provenance)) {
          const json record = json::parse(provenance, nullptr, false);
          row.timing = "retimed";
          if (record.is_object() && record.contains("source") && record["source"].is_string())
            row.retimed_from = std::filesystem::path(record["source"].get<std::string>()).filename().string();
        }
        for (auto it = row.final.begin(); it != row.final.end(); ++it) {
          if (std::find(fixed.begin(), fixed.end(), it.key()) == fixed.end()) extra.insert(it.key());
        }
      } catch (const std::exception& e) {
        row.status = "unreadable";
        row.final = json::object();
        unreadable.push_back(layout.summary(point.id).string() + ": " + e.what());
      }
    } else {
      std::error_code error;
      row.status = std::filesystem::exists(layout.failure(point.id), error) ? "failed" : "pending";
      row.final = json::object();
    }
    rows.push_back(std::move(row));
  }

  std::vector<std::string> header = {"id", "label"};
  for (const auto& column : parameter_columns(sweep)) header.push_back(column);
  header.insert(header.end(), {"seed", "status", "timing", "retimed_from"});
  std::vector<std::string> figures = fixed;
  figures.insert(figures.end(), extra.begin(), extra.end());
  header.insert(header.end(), figures.begin(), figures.end());

  IndexTally counts;
  std::string out = csv_line(header);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& point = points[i];
    std::vector<std::string> cells = {point.id, point.label};
    cells.insert(cells.end(), point.parameters.begin(), point.parameters.end());
    cells.push_back(std::to_string(point.seed));
    cells.push_back(rows[i].status);
    cells.push_back(rows[i].timing);
    cells.push_back(rows[i].retimed_from);
    for (const auto& figure : figures) {
      cells.push_back(rows[i].final.contains(figure) ? cell(rows[i].final[figure]) : std::string());
    }
    out += csv_line(cells);
    if (rows[i].status == "ok")
      ++counts.ok;
    else if (rows[i].status == "diverged")
      ++counts.diverged;
    else if (rows[i].status == "pending")
      ++counts.pending;
    else
      ++counts.failed;
  }
  counts.unreadable = std::move(unreadable);
  if (tally) *tally = counts;
  return out;
}

IndexTally write_index(const Sweep& sweep, const std::vector<SweepPoint>& points, const SweepLayout& layout) {
  IndexTally tally;
  const std::string text = index_csv(sweep, points, layout, &tally);
  std::filesystem::create_directories(layout.dir);
  write_file_atomically(layout.index(), text);
  return tally;
}

}  // namespace sgdsim::analysis
