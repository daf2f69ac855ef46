#pragma once
// Tables of trace values per series: each column's value at given steps (default: each run's last
// evaluation), mean [min, max] over the series' runs (its seeds). A run without a row at that step (a
// diverged run's trace ends early), without the column, or with an empty cell is counted as missing, never
// averaged away.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/run_groups.hpp"
#include "analysis/target_table.hpp"

namespace sgdsim::analysis {

struct ValueCell {
  std::size_t runs = 0;
  std::size_t present = 0;
  std::optional<Spread> value;  // set when every run has a value
};

struct ValueRow {
  std::string series;
  std::optional<std::int64_t> step;  // nullopt: the last evaluation
  std::vector<ValueCell> cells;      // one per column
};

// A column some runs' traces lack counts as missing there; InputError for a column no run has.
std::vector<ValueRow> value_rows(const std::vector<RunGroup>& groups, const std::vector<std::string>& columns,
                                 const std::vector<std::int64_t>& steps);

std::string value_markdown(const std::vector<ValueRow>& rows, const std::vector<std::string>& columns);
std::string value_csv(const std::vector<ValueRow>& rows, const std::vector<std::string>& columns);

}  // namespace sgdsim::analysis
