// `sgdsim validate S.json`: checks a scenario completely (data included) and prints it with defaults filled;
// then, on stderr, what a user checks first: the rates in human units, the model's size, and the bytes and
// simulated seconds of a step, measured by simulating the first few steps.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "common/error.hpp"
#include "common/memory_limit.hpp"
#include "common/units.hpp"
#include "scenarios/wiring/scenario.hpp"

namespace sgdsim::app {
namespace {

// The steps simulated for the per-step figures: enough for protocols that communicate every few steps.
constexpr std::int64_t sample_steps = 5;

std::string bytes_text(double bytes) {
  return units::si_text(bytes) + "B";
}

void print_rates(const scenarios::Scenario& scenario) {
  const auto& edges = scenario.topology().edges;
  if (!edges.empty()) {
    double bw_lo = edges[0].link.bandwidth, bw_hi = bw_lo, lat_lo = edges[0].link.latency, lat_hi = lat_lo;
    for (const auto& e : edges) {
      bw_lo = std::min(bw_lo, e.link.bandwidth);
      bw_hi = std::max(bw_hi, e.link.bandwidth);
      lat_lo = std::min(lat_lo, e.link.latency);
      lat_hi = std::max(lat_hi, e.link.latency);
    }
    const auto range = [](const std::string& lo, const std::string& hi) {
      return lo == hi ? lo : lo + " to " + hi;
    };
    std::fprintf(stderr, "  links:     %zu nodes, %zu links; bandwidth %s (%s); latency %s\n",
                 scenario.topology().nodes, edges.size(),
                 range(units::bandwidth_text(bw_lo), units::bandwidth_text(bw_hi)).c_str(),
                 range(units::bytes_rate_text(bw_lo), units::bytes_rate_text(bw_hi)).c_str(),
                 range(units::duration_text(lat_lo), units::duration_text(lat_hi)).c_str());
  } else {
    std::fprintf(stderr, "  links:     %zu nodes, no links\n", scenario.topology().nodes);
  }
  std::fprintf(stderr, "  hosts:     model math at %s (flop/s)\n",
               units::speed_text(scenario.network().host_speed).c_str());
  const std::size_t d = scenario.dimension();
  std::fprintf(stderr, "  model:     %s, %zu parameters (%s as fp32)\n",
               scenario.resolved()["model"].value("kind", std::string("?")).c_str(), d,
               bytes_text(4.0 * static_cast<double>(d)).c_str());
}

// Simulates the first steps of the scenario (in this process: validate runs no other simulation) and prints
// the bytes per message and per step, and the simulated seconds per step by kind of work.
void print_step_estimate(const nlohmann::json& document, const std::string& file, const std::string& base) {
  nlohmann::json sample = document;
  const std::int64_t steps =
      std::min<std::int64_t>(sample_steps, document["algorithm"]["steps"].get<std::int64_t>());
  sample["algorithm"]["steps"] = steps;
  sample["eval"]["every"] = steps;
  sample["eval"]["suboptimality"] = false;  // solving f* is no part of a step
  sample["eval"]["variance_draws"] = 0;
  sample["eval"]["train_subset"] = 1;  // the losses are no part of a step either: one sample, no test set
  nlohmann::json summary;
  try {
    scenarios::Scenario scenario(sample, file, base);
    scenario.skip_test_evaluation();
    std::ostringstream trace;
    summary = scenario.simulate(trace, false);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "  per step:  no estimate (simulating %lld steps failed: %s)\n",
                 static_cast<long long>(steps), e.what());
    return;
  }
  const nlohmann::json& final = summary["final"];
  const double messages = final["messages"].get<double>(), wire = final["bytes_on_wire"].get<double>();
  const double payload = final["bits_sent"].get<double>() / 8;
  const double n = static_cast<double>(steps);
  if (messages > 0)
    std::fprintf(stderr,
                 "  messages:  %s payload, %s on the wire per message (mean of the first %lld steps)\n",
                 bytes_text(payload / messages).c_str(), bytes_text(wire / messages).c_str(),
                 static_cast<long long>(steps));
  std::fprintf(stderr, "  per step:  %.4g messages, %s on the wire (all nodes)\n", messages / n,
               bytes_text(wire / n).c_str());
  const nlohmann::json& time = summary["simulated_time_s"];
  std::string parts;
  for (const char* part : {"gradient", "encode", "decode", "mixing", "update", "communication"})
    parts += std::string(parts.empty() ? "" : ", ") + part + " " +
             units::duration_text(std::max(0.0, time[part].get<double>()) / n);  // rounding: -1e-16
  std::fprintf(stderr, "  per step:  %s simulated (mean node: %s)\n",
               units::duration_text(time["total"].get<double>() / n).c_str(), parts.c_str());
}

}  // namespace

void add_validate_command(CLI::App& root) {
  auto* cmd = root.add_subcommand(
      "validate",
      "Check a scenario and print it with every default filled in; then, on stderr, its rates in human "
      "units, the model's size, and the bytes and simulated seconds per step of its first steps");
  struct Options {
    std::string scenario;
    std::vector<std::string> overrides;
    std::string memory_limit;
    bool quiet = false;
  };
  auto options = std::make_shared<Options>();
  cmd->add_option("scenario", options->scenario, "Scenario file (JSON, comments allowed)")->required();
  cmd->add_option("--set", options->overrides, "Override a value by dotted path (as for run)")->take_all();
  cmd->add_option(
      "--memory-limit", options->memory_limit,
      "Refuse a scenario whose estimated memory exceeds this (bytes, or 8GB, 512MiB; 0: no check; "
      "default: $SGDSIM_MEMORY_LIMIT, else the machine's memory)");
  cmd->add_flag("-q,--quiet", options->quiet, "Print nothing on success (and simulate nothing)");
  cmd->callback([options] {
    if (!options->memory_limit.empty())
      set_memory_limit(parse_memory_limit(options->memory_limit, "--memory-limit"));
    const nlohmann::json document = scenarios::load_document(options->scenario, options->overrides);
    std::string base = std::filesystem::path(options->scenario).parent_path().string();
    if (base.empty()) base = ".";
    scenarios::Scenario scenario(document, options->scenario, base);
    if (options->quiet) return;
    std::printf("%s\n", scenario.resolved().dump(2).c_str());
    std::fflush(stdout);
    std::fprintf(stderr, "sgdsim: %s is valid.\n", options->scenario.c_str());
    print_rates(scenario);
    print_step_estimate(scenario.resolved(), options->scenario, base);
  });
}

}  // namespace sgdsim::app
