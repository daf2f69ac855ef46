#include "scenarios/wiring/estimate.hpp"

#include <algorithm>
#include <sstream>

#include "algorithms/protocols/prices.hpp"
#include "scenarios/wiring/scenario.hpp"

namespace sgdsim::scenarios {

nlohmann::json estimate(const nlohmann::json& document, const std::string& origin,
                        const std::string& base_dir, std::int64_t steps) {
  nlohmann::json sample = document;
  std::int64_t simulated = steps;
  // The per-step figures only: a few steps, no evaluation beyond one sample, no optimum, no variance draws.
  // A document of the wrong shape is left as it is, for the scenario's own message.
  if (sample.is_object() && sample.contains("algorithm") && sample["algorithm"].is_object()) {
    nlohmann::json& algorithm = sample["algorithm"];
    if (algorithm.contains("steps") && algorithm["steps"].is_number_integer()) {
      simulated = std::max<std::int64_t>(1, std::min(steps, algorithm["steps"].get<std::int64_t>()));
      algorithm["steps"] = simulated;
    }
  }
  if (sample.is_object() && (!sample.contains("eval") || sample["eval"].is_object())) {
    nlohmann::json& eval = sample["eval"];
    eval["every"] = simulated;
    eval["suboptimality"] = false;
    eval["variance_draws"] = 0;
    eval["train_subset"] = 1;
  }
  Scenario scenario(sample, origin, base_dir, {.stand_in_model = true});
  scenario.skip_test_evaluation();
  std::ostringstream trace;
  const nlohmann::json summary = scenario.simulate(trace, false);

  nlohmann::json out;
  out["flops_per_sample"] = scenario.model().flops_per_sample();
  out["dimension"] = scenario.dimension();
  out["steps_simulated"] = simulated;
  const nlohmann::json& compute = scenario.resolved().at("compute");
  out["profile"] = compute.contains("profile") ? compute["profile"].get<std::string>()
                                               : std::string("the bundled profile (profiles/default.json)");
  out["host_speed"] = scenario.network().host_speed;
  const double n = static_cast<double>(simulated);
  const nlohmann::json& final = summary["final"];
  const double messages = final["messages"].get<double>();
  const double payload = final["bits_sent"].get<double>() / 8, wire = final["bytes_on_wire"].get<double>();
  out["message_bytes"] = {{"payload_per_message", messages > 0 ? payload / messages : 0.0},
                          {"on_wire_per_message", messages > 0 ? wire / messages : 0.0},
                          {"messages_per_step", messages / n},
                          {"on_wire_per_step", wire / n}};
  const nlohmann::json& time = summary["simulated_time_s"];
  nlohmann::json per_step;
  for (const char* part : {"gradient", "encode", "decode", "mixing", "update", "communication"})
    per_step[std::string(part) + "_s"] = std::max(0.0, time[part].get<double>()) / n;  // rounding: -1e-16
  per_step["total_s"] = time["total"].get<double>() / n;
  out["per_step"] = per_step;
  nlohmann::json sources = nlohmann::json::object();
  for (const protocols::Price& price : scenario.network().prices->prices()) {
    nlohmann::json entry = {{"for", price.subject},
                            {"basis", std::string(protocols::basis_name(price.basis))},
                            {"rate", price.rate},
                            {"source", price.source}};
    if (price.overhead > 0) entry["launch_s"] = price.overhead;  // per charge, an accelerator's launches
    sources[std::string(protocols::work_names[static_cast<std::size_t>(price.work)])].push_back(entry);
  }
  out["sources"] = sources;
  return out;
}

}  // namespace sgdsim::scenarios
