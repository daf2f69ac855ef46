// sgdsim: the command-line entry point. Exit codes: 0 success, 1 failure (a bug or a failed run), 2 bad
// input, 3 the run diverged (its results are written, up to the divergence).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include <CLI/CLI.hpp>

#include "app/commands.hpp"
#include "common/error.hpp"

int main(int argc, char** argv) {
  CLI::App root{"sgdsim: a discrete-event network simulator for communication-efficient distributed SGD"};
  root.set_version_flag("--version", SGDSIM_VERSION);
  root.require_subcommand(1);
  sgdsim::app::add_run_command(root);
  sgdsim::app::add_retime_command(root);
  sgdsim::app::add_emulate_command(root);
  sgdsim::app::add_validate_command(root);
  sgdsim::app::add_estimate_command(root);
  sgdsim::app::add_topology_command(root);
  sgdsim::app::add_compress_command(root);
  sgdsim::app::add_sweep_command(root);
  sgdsim::app::add_plot_command(root);
  sgdsim::app::add_targets_command(root);
  sgdsim::app::add_table_command(root);
  sgdsim::app::add_schema_command(root);
  sgdsim::app::add_docs_command(root);
  sgdsim::app::add_calibrate_command(root);
  // What a command printed is its result: when standard output cannot take it (a full disk, a closed pipe),
  // the command failed.
  const auto output_written = [] {
    errno = 0;
    if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return true;
    std::fprintf(stderr, "sgdsim: failed: cannot write standard output%s%s\n", errno ? ": " : "",
                 errno ? std::strerror(errno) : "");
    return false;
  };
  try {
    root.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = root.exit(e);
    if (!output_written()) return 1;
    return code == 0 ? 0 : sgdsim::exit_input_error;
  } catch (const sgdsim::Diverged& e) {
    std::fprintf(stderr, "sgdsim: diverged: %s\n", e.what());
    return sgdsim::exit_diverged;
  } catch (const sgdsim::InputError& e) {
    std::fprintf(stderr, "sgdsim: error: %s\n", e.what());
    return sgdsim::exit_input_error;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgdsim: failed: %s\n", e.what());
    return 1;
  }
  return output_written() ? 0 : 1;
}
