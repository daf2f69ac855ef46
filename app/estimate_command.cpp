// `sgdsim estimate S.json [--json]`: the model's flops per sample, the bytes of the messages, and the
// simulated seconds per step of each part of a node's work with the source of each price, without the model's
// math (scenarios/wiring/estimate.hpp; docs/compute.md).
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "app/commands.hpp"
#include "common/units.hpp"
#include "scenarios/wiring/estimate.hpp"
#include "scenarios/wiring/scenario.hpp"

namespace sgdsim::app {
namespace {

void print_text(const nlohmann::json& e, const std::string& file) {
  std::printf("%s: %s flop per sample (forward + backward), %zu parameters\n", file.c_str(),
              units::si_text(e["flops_per_sample"].get<double>()).c_str(), e["dimension"].get<std::size_t>());
  const nlohmann::json& m = e["message_bytes"];
  std::printf("messages: %sB payload, %sB on the wire per message; %.4g messages, %sB on the wire per step\n",
              units::si_text(m["payload_per_message"].get<double>()).c_str(),
              units::si_text(m["on_wire_per_message"].get<double>()).c_str(),
              m["messages_per_step"].get<double>(),
              units::si_text(m["on_wire_per_step"].get<double>()).c_str());
  // An accelerator profile prices model math by the roofline of the model's layers: a prediction, not a
  // measurement, and said so.
  bool roofline = false;
  if (e["sources"].contains("gradient"))
    for (const nlohmann::json& entry : e["sources"]["gradient"])
      roofline = roofline || entry["basis"] == "seconds";
  if (roofline)
    std::printf("prices: %s; model math by its roofline, layer by layer (a prediction)\n",
                e["profile"].get<std::string>().c_str());
  else
    std::printf("prices: %s; model math at %s\n", e["profile"].get<std::string>().c_str(),
                units::speed_text(e["host_speed"].get<double>()).c_str());
  std::printf("simulated seconds per step (mean node, the first %lld steps):\n",
              static_cast<long long>(e["steps_simulated"].get<std::int64_t>()));
  const nlohmann::json& s = e["per_step"];
  for (const char* part : {"gradient", "encode", "decode", "mixing", "update", "communication", "total"})
    std::printf("  %-14s %s%s\n", part,
                units::duration_text(s[std::string(part) + "_s"].get<double>()).c_str(),
                roofline && std::string_view(part) == "gradient" ? " (roofline prediction)" : "");
  std::printf("sources:\n");
  for (const auto& [work, entries] : e["sources"].items())
    for (const nlohmann::json& entry : entries) {
      nlohmann::json subject = entry["for"];
      // A deep model's layers are hundreds of numbers: --json has them.
      if (subject.is_object() && subject.contains("layers"))
        subject["layers"] = std::to_string(subject["layers"].size()) + " layers";
      std::printf("  %-8s %s: %s\n", work.c_str(), subject.dump().c_str(),
                  entry["source"].get<std::string>().c_str());
    }
}

}  // namespace

void add_estimate_command(CLI::App& root) {
  auto* cmd = root.add_subcommand(
      "estimate",
      "Print, without the model's math, its flops per sample, the bytes of the messages and the simulated "
      "seconds per step of each part of a node's work (gradient, encode, decode, mixing, update) under the "
      "scenario's profile, with the source of each price");
  struct Options {
    std::string scenario;
    std::vector<std::string> overrides;
    std::int64_t steps = 5;
    bool json = false;
  };
  auto options = std::make_shared<Options>();
  cmd->add_option("scenario", options->scenario, "Scenario file (JSON, comments allowed)")->required();
  cmd->add_option("--set", options->overrides, "Override a value by dotted path (as for run)")->take_all();
  cmd->add_option("--steps", options->steps, "Steps simulated (fewer when the scenario has fewer)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1000}))
      ->capture_default_str();
  cmd->add_flag("--json", options->json, "Print the figures as one JSON object");
  cmd->callback([options] {
    const nlohmann::json document = scenarios::load_document(options->scenario, options->overrides);
    std::string base = std::filesystem::path(options->scenario).parent_path().string();
    if (base.empty()) base = ".";
    const nlohmann::json figures = scenarios::estimate(document, options->scenario, base, options->steps);
    if (options->json)
      std::printf("%s\n", figures.dump(2).c_str());
    else
      print_text(figures, options->scenario);
  });
}

}  // namespace sgdsim::app
