#pragma once
// One function per `sgdsim` subcommand, each in its own file: it declares its options on the CLI11 app and
// sets a callback. Callbacks throw InputError for bad input (exit 2) and return normally on success.
#include <CLI/CLI.hpp>

namespace sgdsim::app {

void add_run_command(CLI::App& root);
void add_retime_command(CLI::App& root);
void add_emulate_command(CLI::App& root);
void add_validate_command(CLI::App& root);
void add_estimate_command(CLI::App& root);
void add_topology_command(CLI::App& root);
void add_compress_command(CLI::App& root);
void add_sweep_command(CLI::App& root);
void add_plot_command(CLI::App& root);
void add_targets_command(CLI::App& root);
void add_table_command(CLI::App& root);
void add_schema_command(CLI::App& root);
void add_docs_command(CLI::App& root);
void add_calibrate_command(CLI::App& root);

}  // namespace sgdsim::app
