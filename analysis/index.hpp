#pragma once
// DIR/index.csv: one row per point of the whole sweep (not just this shard), rebuilt from runs/ every time,
// so it depends only on the sweep file and the run folders: a sweep killed and rerun, or run as shards whose
// runs/ folders are copied together, gives the same bytes as one uninterrupted run.
//
// Columns: id, label, the varied parameters (see parameter_columns), seed, status (ok | diverged | failed |
// pending | unreadable), then the final figures of summary.json ("final"): its core columns
// (observation/outputs.hpp), then any further ones in alphabetical order. Wall-clock figures are left out on
// purpose: they differ between machines.
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/sweep_layout.hpp"
#include "analysis/sweep_point.hpp"

namespace sgdsim::analysis {

struct IndexTally {
  std::size_t ok = 0;
  std::size_t diverged = 0;  // finished, but the loss left the finite range: counted apart from ok
  std::size_t failed = 0;    // includes unreadable
  std::size_t pending = 0;
  std::vector<std::string> unreadable;  // "file: why" for each summary.json that could not be read
};

// The index text for `points` (all points of `sweep`, in enumeration order).
std::string index_csv(const Sweep& sweep, const std::vector<SweepPoint>& points, const SweepLayout& layout,
                      IndexTally* tally = nullptr);

// Writes DIR/index.csv atomically.
IndexTally write_index(const Sweep& sweep, const std::vector<SweepPoint>& points, const SweepLayout& layout);

// The figures every index has: the core columns of summary.json's "final" (observation/outputs.hpp), in
// order.
const std::vector<std::string>& core_columns();

}  // namespace sgdsim::analysis
