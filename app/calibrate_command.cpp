// `sgdsim calibrate`: measures this machine's device profile (docs/compute.md) and writes it as JSON.
#include <cmath>
#include <cstdio>
#include <string>

#include "analysis/calibration.hpp"
#include "app/commands.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"

namespace sgdsim::app {

void add_calibrate_command(CLI::App& root) {
  auto* command = root.add_subcommand(
      "calibrate",
      "Measure this machine's device profile (model math, vector arithmetic, every compressor's encode and "
      "decode; median of repetitions) and print it, or write it with -o; a scenario uses it with "
      "\"compute\": {\"profile\": FILE}");
  struct Options {
    std::string output;
    analysis::CalibrationOptions calibration;
  };
  auto options = std::make_shared<Options>();
  command->add_option("-o,--output", options->output, "Write the profile to this file (default: stdout)");
  command->add_option("--dimension", options->calibration.dimension, "Coordinates per codec measurement")
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 28))
      ->capture_default_str();
  command->add_option("--repetitions", options->calibration.repetitions, "Repetitions; the median is kept")
      ->check(CLI::Range(1, 1001))
      ->capture_default_str();
  command
      ->add_option("--min-seconds", options->calibration.min_seconds,
                   "Each repetition repeats an operation at least this long")
      ->check(CLI::Range(1e-4, 60.0))
      ->capture_default_str();
  command->callback([options] {
    // Measuring takes minutes: what would stop the writing is refused first.
    if (!std::isfinite(options->calibration.min_seconds))
      throw InputError("--min-seconds: expected a finite number of seconds");
    if (!options->output.empty()) check_output_file(options->output);
    options->calibration.progress = stderr;
    const std::string text = analysis::calibrate(options->calibration).dump(2) + "\n";
    if (options->output.empty())
      std::fputs(text.c_str(), stdout);
    else
      write_file_atomically(options->output, text);
  });
}

}  // namespace sgdsim::app
