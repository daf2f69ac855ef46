#pragma once
// The runs a figure or table is made of, as `plot` and `targets` take them: run and sweep folders, filters
// (--where) and grouping parameters (--group).
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analysis/plot_runs.hpp"

namespace sgdsim::app {

struct RunSelection {
  std::vector<std::string> dirs;
  std::vector<std::string> where;
  std::vector<std::string> group;
};

// Declares the folders argument and --where, --group on `command`.
void add_run_selection(CLI::App& command, RunSelection& selection);

// The runs of the folders that pass every filter (InputError naming what is wrong otherwise).
std::vector<analysis::RunData> select_runs(const RunSelection& selection);

}  // namespace sgdsim::app
