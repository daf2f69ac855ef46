#include "app/calibrate_network.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/units.hpp"
#include "emulation/fabric.hpp"
#include "emulation/interrupt.hpp"
#include "emulation/network_fit.hpp"
#include "emulation/transfer_benchmark.hpp"
#include "sim/config/calibration_file.hpp"

namespace sgdsim::app {

void calibrate_network(const NetworkCalibrateOptions& options) {
  emulation::BenchmarkOptions benchmark;
  for (const std::string& text : options.sizes) {
    char* end = nullptr;
    const double bytes = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(bytes >= 1) || bytes > 1e9 || bytes != std::floor(bytes))
      throw InputError("--sizes: \"" + text + "\": expected a whole number of bytes from 1 to 1e9");
    benchmark.sizes.push_back(bytes);
  }
  for (const std::string& text : options.rates) {
    const auto rate = units::bandwidth(text);
    if (!rate || !(*rate > 0))
      throw InputError("--rates: \"" + text + "\": expected a positive SimGrid bandwidth (\"100Mbps\")");
    benchmark.rates.push_back(*rate);
  }
  benchmark.repeats = options.repeats;
  benchmark.qdisc = options.qdisc;
  benchmark.progress = stderr;
  if (!options.output.empty()) check_output_file(options.output);
  emulation::require_network_tools();

  std::vector<emulation::Transfer> transfers;
  {
    emulation::Watch watch;
    try {
      transfers = emulation::measure_transfers(benchmark, watch);
    } catch (const emulation::Interrupted& e) {
      std::fprintf(stderr, "sgdsim: calibrate: interrupted; the namespaces it made are removed\n");
      std::fflush(stderr);
      std::exit(128 + e.signal());
    }
  }
  const sim::NetworkCalibration calibration = emulation::fit_calibration(transfers);
  nlohmann::json measured = nlohmann::json::array();
  for (const emulation::Transfer& t : transfers) {
    const double before = emulation::predicted_seconds({}, t),
                 after = emulation::predicted_seconds(calibration, t);
    measured.push_back({{"bytes", t.bytes},
                        {"rate", units::bandwidth_text(t.bandwidth)},
                        {"measured_s", t.seconds},
                        {"ideal_s", before},
                        {"calibrated_s", after}});
    std::fprintf(stderr,
                 "sgdsim: calibrate: %9.0f B at %-8s measured %.6f s, ideal %+.1f %%, calibrated %+.1f %%\n",
                 t.bytes, units::bandwidth_text(t.bandwidth).c_str(), t.seconds,
                 100 * (t.seconds - before) / before, 100 * (t.seconds - after) / after);
  }
  const nlohmann::json fit = {
      {"method", "ping-pong over one veth pair shaped by " + options.qdisc +
                     "; one-way time = median round trip - half the 1-byte round trip; per size, least "
                     "squares of the relative error"},
      {"repeats", options.repeats},
      {"kernel", emulation::kernel_release()},
      {"transfers", measured}};
  const std::string text =
      sim::calibration_json(calibration, "sgdsim calibrate --network (" + emulation::kernel_release() + ")",
                            fit)
          .dump(2) +
      "\n";
  if (options.output.empty())
    std::fputs(text.c_str(), stdout);
  else
    write_file_atomically(options.output, text);
}

}  // namespace sgdsim::app
