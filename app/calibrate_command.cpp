// `sgdsim calibrate`: measures this machine's device profile (docs/compute.md) and writes it as JSON.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "analysis/calibration.hpp"
#include "app/calibrate_network.hpp"
#include "app/commands.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"
#include "emulation/fabric.hpp"
#include "sim/config/device_profile.hpp"

namespace sgdsim::app {
namespace {

// How a profile's `source` fields name the reference profile: as given when relative, relative to the current
// folder when it lies inside it, else by its file name, so that no machine's absolute path lands in a profile
// that may be shared or committed.
std::string reference_label(const std::string& given) {
  const std::filesystem::path path(given);
  if (path.is_relative()) return path.lexically_normal().generic_string();
  std::error_code error;
  const std::filesystem::path here = std::filesystem::current_path(error);
  if (!error) {
    const std::filesystem::path inside = path.lexically_normal().lexically_relative(here);
    if (!inside.empty() && *inside.begin() != "..") return inside.generic_string();
  }
  return path.filename().generic_string();
}

}  // namespace

void add_calibrate_command(CLI::App& root) {
  auto* command = root.add_subcommand(
      "calibrate",
      "Measure this machine's device profile (model math, vector arithmetic, the encode and decode of every "
      "registered compressor example or of the codec configurations --scenario files use; median of "
      "repetitions) and print it, or write it with -o; a scenario uses it with \"compute\": {\"profile\": "
      "FILE}; with --network, the flow model's factors by message size fitted to transfers over a real "
      "shaped link (root, ip and tc; docs/validation.md), used with \"network\": {\"calibration\": FILE}");
  struct Options {
    std::string output;
    std::string reference;
    analysis::CalibrationOptions calibration;
  };
  auto options = std::make_shared<Options>();
  auto network = std::make_shared<NetworkCalibrateOptions>();
  auto network_mode = std::make_shared<bool>(false);
  command->add_flag("--network", *network_mode,
                    "Fit the flow model's latency and bandwidth factors, piecewise by message size, to "
                    "one-way transfers over a veth pair shaped to each --rates (a ping-pong benchmark)");
  command->add_option("--sizes", network->sizes, "With --network: message sizes, bytes")
      ->delimiter(',')
      ->capture_default_str();
  command->add_option("--rates", network->rates, "With --network: link rates (SimGrid units)")
      ->delimiter(',')
      ->capture_default_str();
  command
      ->add_option("--round-trips", network->repeats,
                   "With --network: measured round trips per size; the median is kept")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1001}))
      ->capture_default_str();
  command->add_option("--qdisc", network->qdisc, "With --network: the shaping qdisc")
      ->check(CLI::IsMember(emulation::qdisc_kinds))
      ->capture_default_str();
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
  command
      ->add_option("--scenario", options->calibration.scenarios,
                   "Measure exactly the codec configurations this scenario or sweep file uses (repeatable); "
                   "with -o FILE of an existing profile, merge them into it")
      ->check(CLI::ExistingFile);
  command->add_flag("--examples", options->calibration.examples,
                    "With --scenario: also every registered example of every compressor kind");
  command->add_option(
      "--scale-to", options->reference,
      "On a loaded machine: measure this profile's codec configurations too and multiply every "
      "measured figure by the load factor, the geometric mean of its / measured throughputs (the sources "
      "name "
      "it relative to the current folder, or by its file name when it lies outside)");
  command->callback([options, network, network_mode] {
    if (*network_mode) {
      if (!options->calibration.scenarios.empty() || !options->reference.empty() ||
          options->calibration.examples)
        throw InputError(
            "--network measures the network only: --scenario, --examples and --scale-to do not apply");
      network->output = options->output;
      calibrate_network(*network);
      return;
    }
    // Measuring takes minutes: what would stop the writing is refused first.
    if (!std::isfinite(options->calibration.min_seconds))
      throw InputError("--min-seconds: expected a finite number of seconds");
    if (!options->output.empty()) check_output_file(options->output);
    // With --scenario, an existing profile -o names receives the measured prices; it must read as one first.
    if (!options->calibration.scenarios.empty() && !options->output.empty() &&
        std::filesystem::exists(options->output)) {
      options->calibration.into = parse_json_file(options->output);
      sim::read_device_profile(options->calibration.into, options->output);
    }
    if (!options->reference.empty()) {
      options->calibration.reference = parse_json_file(options->reference);
      options->calibration.reference_name = reference_label(options->reference);
      sim::read_device_profile(options->calibration.reference, options->reference);
    }
    // Every scenario must build before minutes of measuring.
    for (const std::string& file : options->calibration.scenarios) analysis::used_configurations(file);
    options->calibration.progress = stderr;
    const std::string text = analysis::calibrate(options->calibration).dump(2) + "\n";
    if (options->output.empty())
      std::fputs(text.c_str(), stdout);
    else
      write_file_atomically(options->output, text);
  });
}

}  // namespace sgdsim::app
