// `sgdsim emulate RUN_DIR -o OUT`: a recorded run replayed over real TCP between network namespaces, compared
// with the simulator's prediction (docs/validation.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/plot_gnuplot.hpp"
#include "app/commands.hpp"
#include "emulation/fabric.hpp"
#include "emulation/interrupt.hpp"
#include "scenarios/wiring/emulate.hpp"

namespace sgdsim::app {

namespace {

// Measured against simulated communication seconds per step, one point per node and interval, on log axes,
// with the line where they agree.
void draw(const std::filesystem::path& folder, const std::vector<emulation::Interval>& intervals) {
  analysis::Figure figure;
  figure.title = "Communication time per step: measured over TCP vs simulated";
  figure.x_label = "simulated (s)";
  figure.y_label = "measured (s)";
  figure.log_x = figure.log_y = true;
  analysis::Series points{.legend = "node, interval", .rows = {}, .points = true};
  double low = INFINITY, high = 0;
  for (const emulation::Interval& i : intervals) {
    if (!(i.simulated_communication_s > 0) || !(i.measured_communication_s > 0)) continue;
    points.rows.push_back({i.simulated_communication_s, i.measured_communication_s,
                           i.measured_communication_s, i.measured_communication_s, 1});
    low = std::min({low, i.simulated_communication_s, i.measured_communication_s});
    high = std::max({high, i.simulated_communication_s, i.measured_communication_s});
  }
  if (points.rows.empty()) return;
  std::sort(points.rows.begin(), points.rows.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
  figure.series.push_back(points);
  figure.series.push_back(
      {.legend = "measured = simulated", .rows = {{low, low, low, low, 1}, {high, high, high, high, 1}}});
  const analysis::PlotFiles files = analysis::write_gnuplot(figure, folder / "comparison.png");
  try {
    analysis::render_gnuplot(files);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgdsim: emulate: %s\n", e.what());  // the script and data stay: the figure is extra
  }
}

}  // namespace

void add_emulate_command(CLI::App& root) {
  auto* cmd = root.add_subcommand(
      "emulate",
      "Replay a recorded run (run --record) over real TCP between Linux network namespaces (root, ip and tc "
      "needed) and compare with the simulated time: writes OUT/comparison.csv, validation.json and "
      "comparison.png (docs/validation.md)");
  auto options = std::make_shared<scenarios::EmulateOptions>();
  auto quiet = std::make_shared<bool>(false);
  auto no_compute = std::make_shared<bool>(false);
  cmd->add_option("run", options->run_directory, "A run folder with schedule.bin (run --record)")->required();
  cmd->add_option("-o,--output", options->output, "Output directory (written atomically)")->required();
  cmd->add_option("--set", options->overrides,
                  "Change a timing-only key of the prediction, e.g. --set network.model=tcp")
      ->take_all();
  cmd->add_flag("--no-compute", *no_compute,
                "Leave the charged work out on both sides (a communication-only comparison)");
  cmd->add_option("--qdisc", options->qdisc,
                  "The shaping: htb-ack (ACKs before bulk data, as fq_codel), tbf or htb (one FIFO each)")
      ->check(CLI::IsMember(emulation::qdisc_kinds))
      ->capture_default_str();
  cmd->add_flag("--force", options->force, "Replace an existing output directory");
  cmd->add_flag("-q,--quiet", *quiet, "Print nothing on success");
  cmd->callback([options, quiet, no_compute] {
    options->compute = !*no_compute;
    options->draw = draw;
    try {
      const nlohmann::json validation = scenarios::emulate_to_directory(*options);
      if (!*quiet)
        std::fprintf(stderr, "sgdsim: emulate: wrote %s (median relative error %s, p90 %s)\n",
                     options->output.c_str(), validation["median_relative_error"].dump().c_str(),
                     validation["p90_relative_error"].dump().c_str());
    } catch (const emulation::Interrupted& e) {
      // Everything it made is gone by now (the fabric's destructor ran while unwinding).
      std::fprintf(stderr, "sgdsim: emulate: interrupted; the namespaces it made are removed\n");
      std::fflush(stderr);
      std::exit(128 + e.signal());
    }
  });
}

}  // namespace sgdsim::app
