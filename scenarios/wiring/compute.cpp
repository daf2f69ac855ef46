#include "scenarios/wiring/compute.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "algorithms/compression/compressor.hpp"
#include "common/spec.hpp"
#include "scenarios/wiring/dynamics.hpp"

namespace sgdsim::scenarios {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The JSON Schema of a codecs table: compressor kinds to {encode, decode} in coordinates per second.
nlohmann::json codecs_shape(bool partial) {
  json kinds = json::array();
  for (const keys::Kind* kind : compression::compressors().kinds()) kinds.push_back(kind->name);
  const json speed = {{"type", "number"}, {"minimum", 1}, {"maximum", 1e15}};
  json entry = {{"type", "object"},
                {"properties", {{"encode", speed}, {"decode", speed}}},
                {"additionalProperties", false}};
  if (!partial) entry["required"] = {"encode", "decode"};
  return {{"type", "object"}, {"propertyNames", {{"enum", kinds}}}, {"additionalProperties", entry}};
}

const std::string codecs_help =
    "Encode and decode throughputs per compressor kind, in coordinates per second: {\"qsgd\": {\"encode\": "
    "1e9, \"decode\": 2e9}, ...}.";

// Reads `codecs` (an object of compressor kind → {encode, decode}) into `into`, checking every name and
// value. With `partial`, an entry may give only one of the two throughputs.
void read_codecs(Spec& spec, bool partial, std::map<std::string, protocols::CodecSpeed>& into) {
  const json* table = spec.peek("codecs");
  if (!table) return;
  if (!table->is_object())
    spec.fail("codecs", "expected an object of compressor kinds, found " + table->dump());
  std::vector<std::string> known;
  for (const keys::Kind* kind : compression::compressors().kinds()) known.push_back(kind->name);
  json echoed = json::object();
  for (const auto& [kind, entry] : table->items()) {
    const std::string at = "codecs." + kind;
    if (std::find(known.begin(), known.end(), kind) == known.end())
      spec.fail("codecs", "\"" + kind + "\" is not a compressor kind");
    if (!entry.is_object()) spec.fail("codecs", kind + ": expected {\"encode\": ..., \"decode\": ...}");
    protocols::CodecSpeed& speed = into[kind];
    for (const auto& [name, value] : entry.items()) {
      if (name != "encode" && name != "decode")
        spec.fail("codecs", kind + ": unknown key \"" + name + "\" (expected encode, decode)");
      if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 1 ||
          value.get<double>() > 1e15)
        spec.fail("codecs",
                  at + "." + name + ": expected coordinates per second in [1, 1e15], found " + value.dump());
      (name == "encode" ? speed.encode : speed.decode) = value.get<double>();
    }
    if (!partial && (speed.encode == 0 || speed.decode == 0))
      spec.fail("codecs", kind + ": both encode and decode are required");
  }
  spec.echo("codecs", *table);
}

json codecs_json(const std::map<std::string, protocols::CodecSpeed>& codecs) {
  json out = json::object();
  for (const auto& [kind, speed] : codecs) {
    json entry = json::object();  // a partial override of a kind the profile lacks stays partial
    if (speed.encode > 0) entry["encode"] = speed.encode;
    if (speed.decode > 0) entry["decode"] = speed.decode;
    out[kind] = entry;
  }
  return out;
}

struct Profile {
  double host_speed = 0;
  double memory_bandwidth = 0;
  std::map<std::string, protocols::CodecSpeed> codecs;
};

Profile read_profile(const json& document, const std::string& origin) {
  json resolved;
  Spec spec(document, origin, "", resolved, profile_keys());
  for (const char* text : {"description", "machine", "command"})
    if (spec.has(text)) spec.string(text);
  Profile profile;
  profile.host_speed = spec.speed("host_speed");
  profile.memory_bandwidth = spec.bandwidth("memory_bandwidth");
  read_codecs(spec, false, profile.codecs);
  spec.finish();
  return profile;
}

}  // namespace

const keys::Object& profile_keys() {
  static const keys::Object profile{
      "profile",
      "A device profile: how fast one device does each kind of a node's work (docs/compute.md).",
      {keys::string("description", "What the profile describes.").may_be_absent(),
       keys::string("machine", "The machine it was measured on.").may_be_absent(),
       keys::string("command", "The command that measured it.").may_be_absent(),
       keys::speed("host_speed", "Model math (forward and backward passes), flop/s."),
       keys::bandwidth("memory_bandwidth",
                       "Vector arithmetic (mixing, averaging, updates, error feedback): bytes read and "
                       "written per second."),
       keys::any("codecs", codecs_help).shaped(codecs_shape(false))}};
  return profile;
}

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
             .computed_default("the profile's host_speed"),
         keys::path("profile", "A device profile (JSON, as written by `sgdsim calibrate`).")
             .computed_default("the bundled profile, profiles/default.json"),
         keys::bandwidth("memory_bandwidth", "Overrides the profile's memory bandwidth (vector arithmetic).")
             .computed_default("the profile's memory_bandwidth"),
         keys::any("codecs", codecs_help + " Entries override the profile's, one throughput at a time.")
             .shaped(codecs_shape(true))
             .computed_default("the profile's codecs"),
         keys::object("charge", charge, "Which kinds of work cost simulated time.")}};
    for (auto& key : compute_dynamics_keys()) o.keys.push_back(std::move(key));
    return o;
  }();
  return compute;
}

Compute read_compute(Spec& root, const std::string& base_dir, std::size_t nodes, std::uint64_t seed,
                     sim::Dynamics* dynamics) {
  Spec compute = root.object("compute");
  Profile profile;
  if (compute.has("profile")) {
    const std::string given = compute.string("profile");
    const fs::path file = fs::path(given).is_absolute() ? fs::path(given) : fs::path(base_dir) / given;
    profile = compute.in_context([&] { return read_profile(parse_json_file(file.string()), file.string()); });
  } else {
    profile = read_profile(parse_json_text(std::string(default_profile_text()), "the bundled profile"),
                           "profiles/default.json (bundled)");
  }
  Compute out;
  out.host_speed = compute.has("host_speed") ? compute.speed("host_speed") : profile.host_speed;
  if (!compute.has("host_speed")) compute.echo("host_speed", out.host_speed);
  protocols::Costs& costs = out.costs;
  costs.memory_bandwidth =
      compute.has("memory_bandwidth") ? compute.bandwidth("memory_bandwidth") : profile.memory_bandwidth;
  if (!compute.has("memory_bandwidth")) compute.echo("memory_bandwidth", costs.memory_bandwidth);
  costs.codecs = profile.codecs;
  read_codecs(compute, true, costs.codecs);
  compute.echo("codecs", codecs_json(costs.codecs));
  Spec charge = compute.object("charge");
  for (std::size_t w = 0; w < protocols::work_kinds; ++w)
    costs.charged[w] = charge.boolean(std::string(protocols::work_names[w]));
  charge.finish();
  if (dynamics) read_compute_dynamics(compute, nodes, seed, base_dir, *dynamics);
  compute.finish();
  return out;
}

}  // namespace sgdsim::scenarios
