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
         keys::path("profile",
                    "A device profile: the name of a bundled one (default, v100-fp32, v100-amp, a100-tf32, "
                    "a100-amp: docs/compute.md), or a JSON file as `sgdsim calibrate` writes it.")
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
  const std::string given = compute.has("profile") ? compute.string("profile") : std::string();
  if (const std::string_view bundled = bundled_profile_text(given.empty() ? "default" : given);
      !bundled.empty()) {
    // A bundled profile's name wins over a file of that name beside the scenario.
    const std::string file = "profiles/" + (given.empty() ? std::string("default") : given) + ".json";
    profile = compute.in_context([&] {
      return read_device_profile(parse_json_text(std::string(bundled), "the bundled " + file), file);
    });
    profile_name = "the bundled profile " + (given.empty() ? std::string() : given + " ") + "(" + file + ")";
  } else {
    const fs::path file = fs::path(given).is_absolute() ? fs::path(given) : fs::path(base_dir) / given;
    if (!fs::exists(file)) {
      std::string names;
      for (const std::string& name : bundled_profile_names()) names += (names.empty() ? "" : ", ") + name;
      compute.fail("profile", "\"" + given + "\" is neither a bundled profile (" + names + ") nor a file (" +
                                  file.string() + " does not exist)");
    }
    profile_name = "the profile " + given;
    profile = compute.in_context([&] { return read_device_profile(parse_json_file(file.string()), given); });
  }
  const bool roofline = profile.roofline.active();
  // An accelerator's model math is its roofline: a host_speed beside it would be ignored or would override
  // it without saying so, and neither is what its writer meant.
  if (roofline && compute.has("host_speed"))
    compute.fail(
        "host_speed",
        "cannot be set together with compute.profile \"" + given +
            "\", an accelerator profile whose model math is priced layer by layer by its roofline; "
            "remove compute.host_speed (to re-time a recorded run under it, replace the whole compute "
            "object: --set 'compute={\"profile\": \"" +
            given + "\"}')");
  ComputeSetup out;
  out.host_speed = compute.has("host_speed") ? compute.speed("host_speed") : profile.host_speed;
  // Echoed with their units (exact: the shortest text that reads back to the same number), since a plain
  // number is refused where people write these keys, and resolved.json must run as it is (which it would
  // not with a host_speed beside an accelerator profile).
  if (!compute.has("host_speed") && !roofline) compute.echo("host_speed", exact_text(out.host_speed) + "f");
  protocols::Costs& costs = out.costs;
  costs.memory_bandwidth =
      compute.has("memory_bandwidth") ? compute.bandwidth("memory_bandwidth") : profile.memory_bandwidth;
  if (!compute.has("memory_bandwidth"))
    compute.echo("memory_bandwidth", exact_text(costs.memory_bandwidth) + "Bps");
  costs.configurations = profile.configurations;
  costs.profile = profile_name;
  costs.roofline = profile.roofline;
  costs.roofline.profile = profile_name;
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
