#include "sim/config/device_profile.hpp"

#include <algorithm>
#include <cmath>

#include "algorithms/compression/compressor.hpp"
#include "common/spec.hpp"

namespace sgdsim::sim {
using nlohmann::json;

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

const std::string& codecs_help() {
  static const std::string help =
      "Encode and decode throughputs per compressor kind, in coordinates per second: {\"qsgd\": {\"encode\": "
      "1e9, \"decode\": 2e9}, ...}.";
  return help;
}

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

const keys::Object& profile_keys() {
  static const keys::Object profile{
      "profile",
      "A device profile: how fast one device does each kind of a node's work (docs/compute.md).",
      {keys::string("description", "What the profile describes.").may_be_absent(),
       keys::string("machine", "The machine it was measured on.").may_be_absent(),
       keys::string("command", "The command that measured it.").may_be_absent(),
       keys::speed("host_speed", "Model math (forward and backward passes), flop/s.").plain_number_allowed(),
       keys::bandwidth("memory_bandwidth",
                       "Vector arithmetic (mixing, averaging, updates, error feedback): bytes read and "
                       "written per second.")
           .plain_number_allowed(),
       keys::any("codecs", codecs_help()).shaped(codecs_shape(false))}};
  return profile;
}

DeviceProfile read_device_profile(const json& document, const std::string& origin) {
  json resolved;
  Spec spec(document, origin, "", resolved, profile_keys());
  for (const char* text : {"description", "machine", "command"})
    if (spec.has(text)) spec.string(text);
  DeviceProfile profile;
  profile.host_speed = spec.speed("host_speed");
  profile.memory_bandwidth = spec.bandwidth("memory_bandwidth");
  read_codecs(spec, false, profile.codecs);
  spec.finish();
  return profile;
}

}  // namespace sgdsim::sim
