#pragma once
// Reaching a target: the first evaluation row of a run's trace whose metric is at or below the target
// (losses, errors, distances) or at or above it (accuracies). Time and bits to a target are read off that
// row, so they are as fine as the evaluation interval. The same rule serves figures and tables.
#include <optional>
#include <string>

#include "analysis/plot_runs.hpp"

namespace sgdsim::analysis {

struct Target {
  std::string column = "train_loss";  // trace column
  double value = 0;
  bool upward = false;  // true: reached at or above value (accuracy); false: at or below

  // "train_loss <= 0.5", for legends, notes and tables.
  std::string text() const;
};

// The trace column of a short name as the commands take it (loss, accuracy, bits, time, consensus: the
// aliases declared in observation/outputs.hpp); any other name is a column's own.
std::string trace_column(const std::string& name);

// metric: a short name ("loss", "accuracy") or any trace column; the columns declared higher-is-better
// (test_accuracy) are reached from below, all others from above.
Target make_target(const std::string& metric, double value);

// Index of the first row of run.trace that reaches the target; nullopt when none does. InputError when the
// trace has no such column.
std::optional<std::size_t> first_reaching_row(const RunData& run, const Target& target);

// A number of a trace row by column name; nullopt for an empty cell. InputError when there is no such column.
std::optional<double> trace_value(const RunData& run, std::size_t row, const std::string& column);

// Position of a trace column; InputError naming the file and listing its columns when it has none.
std::size_t require_column(const RunData& run, const std::string& column);

// The link bandwidth of a run in bit/s, from the parameter `key` (which must be a bandwidth key of the
// scenario format). InputError when missing or unreadable.
double bandwidth_bits(const RunData& run, const std::string& key);

}  // namespace sgdsim::analysis
