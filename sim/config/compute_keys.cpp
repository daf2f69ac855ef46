#include "sim/config/compute_keys.hpp"

#include <charconv>
#include <filesystem>
#include <string>

#include "common/spec.hpp"
#include "sim/config/device_profile.hpp"
#include "sim/config/dynamics_keys.hpp"

namespace sgdsim::sim {

namespace {
// The shortest decimal text that reads back to the same double.
std::string exact_text(double value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  return std::string(text, end);
}
}  // namespace
namespace fs = std::filesystem;

const keys::Object& compute_keys() {
  static const keys::Object charge{
      "charge",
      "Which kinds of a node's work cost simulated time (false: free, as in a communication-only model).",
      {keys::boolean("gradient", "Forward and backward passes (flops at host_speed).").fallback_to(true),
       keys::boolean("encode", "Encoding each message (and the memory's arithmetic).").fallback_to(true),
       keys::boolean("decode", "Decoding each received message.").fallback_to(true),
       keys::boolean("mixing", "Consensus, gossip and averaging arithmetic.").fallback_to(true),
       keys::boolean("update", "The SGD update x −= η g.").fallback_to(true)}};
  static const keys::Object compute = [&] {
    keys::Object o{
        "compute",
        "How fast the simulated hosts do each kind of work: model math at host_speed, the rest priced by a "
        "device profile (docs/compute.md).",
        {keys::speed("host_speed", "Speed of every host for model math (forward and backward passes).")
             .computed_default("the profile's host_speed")
             .timing_only(),
         keys::path("profile", "A device profile (JSON, as written by `sgdsim calibrate`).")
             .computed_default("the bundled profile, profiles/default.json")
             .timing_only(),
         keys::bandwidth("memory_bandwidth", "Overrides the profile's memory bandwidth (vector arithmetic).")
             .computed_default("the profile's memory_bandwidth")
             .timing_only(),
         keys::any("codecs", codecs_help() + " Entries override the profile's, one throughput at a time.")
             .shaped(codecs_shape(true))
             .computed_default("the profile's codecs")
             .timing_only(),
         keys::object("charge", charge, "Which kinds of work cost simulated time.").timing_only()}};
    for (auto& key : compute_dynamics_keys()) o.keys.push_back(std::move(key));
    return o;
  }();
  return compute;
}

ComputeSetup read_compute(Spec& root, const std::string& base_dir, std::size_t nodes, std::uint64_t seed,
                          Dynamics* dynamics) {
  Spec compute = root.object("compute");
  DeviceProfile profile;
  std::string profile_name = "profiles/default.json (bundled)";
  if (compute.has("profile")) {
    const std::string given = compute.string("profile");
    const fs::path file = fs::path(given).is_absolute() ? fs::path(given) : fs::path(base_dir) / given;
    profile_name = "the profile " + given;
    profile = compute.in_context([&] { return read_device_profile(parse_json_file(file.string()), given); });
  } else {
    profile = read_device_profile(parse_json_text(std::string(default_profile_text()), "the bundled profile"),
                                  "profiles/default.json");
    profile_name = "the bundled profile (profiles/default.json)";
  }
  ComputeSetup out;
  out.host_speed = compute.has("host_speed") ? compute.speed("host_speed") : profile.host_speed;
  // Echoed with their units (exact: the shortest text that reads back to the same number), since a plain
  // number is refused where people write these keys, and resolved.json must run as it is.
  if (!compute.has("host_speed")) compute.echo("host_speed", exact_text(out.host_speed) + "f");
  protocols::Costs& costs = out.costs;
  costs.memory_bandwidth =
      compute.has("memory_bandwidth") ? compute.bandwidth("memory_bandwidth") : profile.memory_bandwidth;
  if (!compute.has("memory_bandwidth"))
    compute.echo("memory_bandwidth", exact_text(costs.memory_bandwidth) + "Bps");
  costs.configurations = profile.configurations;
  costs.profile = profile_name;
  // The scenario's prices win over the profile's. The prices a run uses are echoed by the scenario once its
  // protocol has registered them (PriceTable::codec_prices); until then, what the scenario gave.
  read_codecs(compute, true, costs.codecs, costs.configurations, "the scenario's compute.codecs");
  if (!compute.has("codecs")) compute.echo("codecs", nlohmann::json::array());
  Spec charge = compute.object("charge");
  for (std::size_t w = 0; w < protocols::work_kinds; ++w)
    costs.charged[w] = charge.boolean(std::string(protocols::work_names[w]));
  charge.finish();
  if (dynamics) read_compute_dynamics(compute, nodes, out.host_speed, seed, base_dir, *dynamics);
  compute.finish();
  return out;
}

}  // namespace sgdsim::sim
