#include "sim/config/device_profile.hpp"

#include <algorithm>
#include <cmath>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/speed_keys.hpp"
#include "common/spec.hpp"

namespace sgdsim::sim {
using nlohmann::json;

// The JSON Schema of a codecs table: either compressor kinds to {encode, decode} (coordinates per second), or
// a list of priced configurations [{"codec": {...}, "encode": ..., "decode": ..., "source": "..."}].
nlohmann::json codecs_shape(bool partial) {
  json kinds = json::array();
  for (const keys::Kind* kind : compression::compressors().kinds()) kinds.push_back(kind->name);
  const json speed = {{"type", "number"}, {"minimum", 1}, {"maximum", 1e15}};
  json entry = {{"type", "object"},
                {"properties", {{"encode", speed}, {"decode", speed}}},
                {"additionalProperties", false}};
  if (!partial) entry["required"] = {"encode", "decode"};
  // x-input-only: a form the loader reads but never writes back (resolved.json echoes the list of prices
  // used), so no resolved scenario can show it.
  const json by_kind = {{"type", "object"},
                        {"propertyNames", {{"enum", kinds}}},
                        {"additionalProperties", entry},
                        {"x-input-only", true}};
  const json text = {{"type", "string"}};
  const json input_text = {{"type", "string"}, {"x-input-only", true}};
  json priced = {{"type", "object"},
                 {"properties",
                  // A priced configuration is a compressor object reduced to its speed keys: the compressor
                  // schema holds for it, and closes it.
                  {{"codec", {{"$ref", "#/definitions/compressor"}}},
                   {"encode", speed},
                   {"decode", speed},
                   {"source", text},
                   {"encode_source", input_text},
                   {"decode_source", input_text}}},
                 {"required", partial ? json{"codec"} : json{"codec", "encode", "decode"}},
                 {"additionalProperties", false}};
  return {{"oneOf", {by_kind, {{"type", "array"}, {"items", priced}}}}};
}

const std::string& codecs_help() {
  static const std::string help =
      "Encode and decode throughputs in coordinates per second: a list of codec configurations, [{\"codec\": "
      "{\"kind\": \"qsgd\", \"levels\": 16, ...}, \"encode\": 1e9, \"decode\": 2e9, \"source\": \"...\"}, "
      "...] "
      "(only the keys that change a codec's speed matter, docs/compute.md), or per compressor kind, for "
      "every "
      "configuration of the kind, {\"qsgd\": {\"encode\": 1e9, \"decode\": 2e9}, ...}.";
  return help;
}

namespace {

double read_speed(Spec& spec, const json& value, const std::string& at) {
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 1 ||
      value.get<double>() > 1e15)
    spec.fail("codecs", at + ": expected coordinates per second in [1, 1e15], found " + value.dump());
  return value.get<double>();
}

// A list of priced configurations into `configurations` (a later entry of one configuration wins).
void read_priced(Spec& spec, const json& table, bool partial, const std::string& default_source,
                 std::map<std::string, protocols::CodecPrice>& configurations) {
  for (std::size_t i = 0; i < table.size(); ++i) {
    const json& entry = table[i];
    const std::string at = "[" + std::to_string(i) + "]";
    if (!entry.is_object() || !entry.contains("codec"))
      spec.fail("codecs", at + ": expected {\"codec\": {...}, \"encode\": ..., \"decode\": ...}");
    json priced;
    try {
      priced = compression::priced_configuration(
          compression::resolved_configuration(entry["codec"], spec.where("codecs") + at + ".codec"));
    } catch (const InputError& e) {
      spec.fail("codecs", at + ".codec: " + e.what());
    }
    protocols::CodecSpeed speed;
    std::string encode_source, decode_source;
    for (const auto& [name, value] : entry.items()) {
      if (name == "codec") continue;
      if (name == "encode" || name == "decode") {
        (name == "encode" ? speed.encode : speed.decode) = read_speed(spec, value, at + "." + name);
      } else if (name == "source" || name == "encode_source" || name == "decode_source") {
        if (!value.is_string()) spec.fail("codecs", at + "." + name + ": expected a string");
        if (name != "decode_source") encode_source = value.get<std::string>();
        if (name != "encode_source") decode_source = value.get<std::string>();
      } else {
        spec.fail("codecs", at + ": unknown key \"" + name +
                                "\" (expected codec, encode, decode, source, encode_source, decode_source)");
      }
    }
    if (!partial && (speed.encode == 0 || speed.decode == 0))
      spec.fail("codecs", at + ": both encode and decode are required");
    if (speed.encode == 0 && speed.decode == 0)
      spec.fail("codecs", at + ": expected an encode or a decode throughput");
    if (encode_source.empty()) encode_source = default_source;
    if (decode_source.empty()) decode_source = default_source;
    std::string source = speed.decode == 0   ? encode_source
                         : speed.encode == 0 ? decode_source
                         : encode_source == decode_source
                             ? encode_source
                             : "encode: " + encode_source + "; decode: " + decode_source;
    protocols::CodecPrice& into = configurations[priced.dump()];
    // A partial entry refines one direction of the price already there.
    if (!into.source.empty() && (speed.encode == 0 || speed.decode == 0))
      source = into.source + "; " + (speed.encode > 0 ? "encode: " : "decode: ") + source;
    if (speed.encode > 0) into.speed.encode = speed.encode;
    if (speed.decode > 0) into.speed.decode = speed.decode;
    into.source = source;
  }
}

}  // namespace

void read_codecs(Spec& spec, bool partial, std::map<std::string, protocols::CodecSpeed>& by_kind,
                 std::map<std::string, protocols::CodecPrice>& configurations, const std::string& source) {
  const json* table = spec.peek("codecs");
  if (!table) return;
  if (table->is_array()) {
    read_priced(spec, *table, partial, source, configurations);
    spec.echo("codecs", *table);
    return;
  }
  if (!table->is_object())
    spec.fail("codecs", "expected a list of priced configurations or an object of compressor kinds, found " +
                            table->dump());
  std::vector<std::string> known;
  for (const keys::Kind* kind : compression::compressors().kinds()) known.push_back(kind->name);
  for (const auto& [kind, entry] : table->items()) {
    if (std::find(known.begin(), known.end(), kind) == known.end())
      spec.fail("codecs", "\"" + kind + "\" is not a compressor kind");
    if (!entry.is_object()) spec.fail("codecs", kind + ": expected {\"encode\": ..., \"decode\": ...}");
    protocols::CodecSpeed& speed = by_kind[kind];
    for (const auto& [name, value] : entry.items()) {
      if (name != "encode" && name != "decode")
        spec.fail("codecs", kind + ": unknown key \"" + name + "\" (expected encode, decode)");
      (name == "encode" ? speed.encode : speed.decode) = read_speed(spec, value, kind + "." + name);
    }
    if (!partial && (speed.encode == 0 || speed.decode == 0))
      spec.fail("codecs", kind + ": both encode and decode are required");
  }
  spec.echo("codecs", *table);
}

namespace {

// An accelerator's figure: its value and where it came from.
keys::Object figure_object(const std::string& name, keys::Key value, const std::string& help) {
  return {name, help, {std::move(value), keys::string("source", "Where the value comes from.")}};
}

const keys::Object& accelerator_keys() {
  static const keys::Object peak = figure_object(
      "peak", keys::speed("value", "flop/s").plain_number_allowed(),
      "The datasheet's peak of model math at the profile's precision (FP32, TF32, FP16 tensor cores).");
  static const keys::Object efficiency = figure_object(
      "efficiency", keys::number("value", "A fraction of the peak.").above(0).at_most(1),
      "The fraction of the peak a layer's math reaches, fitted to a published training throughput.");
  static const keys::Object memory = figure_object(
      "memory_bandwidth", keys::bandwidth("value", "bytes/s").plain_number_allowed(),
      "The datasheet's memory bandwidth; also that of vector arithmetic and of the codecs' estimates.");
  static const keys::Object launch = figure_object(
      "launch_overhead", keys::duration("value", "seconds").plain_number_allowed(),
      "Seconds per kernel launch, added per kernel of a layer and per charge of vector work or a codec.");
  static const keys::Object width = figure_object(
      "bytes_per_value", keys::number("value", "bytes").above(0).at_most(8),
      "Bytes of an activation or a weight in the model's math: 4 (FP32, TF32), 2 (mixed precision).");
  static const keys::Object accelerator{
      "accelerator",
      "An accelerator's roofline (docs/compute.md, \"Accelerator profiles\"): a layer takes max(flops / "
      "(efficiency · peak), bytes / memory_bandwidth) plus launch_overhead per kernel.",
      {keys::object("peak", peak, peak.help), keys::object("efficiency", efficiency, efficiency.help),
       keys::object("memory_bandwidth", memory, memory.help),
       keys::object("launch_overhead", launch, launch.help),
       keys::object("bytes_per_value", width, width.help)}};
  return accelerator;
}

// Reads one figure of the accelerator object; `read` reads its value.
template <class Read>
protocols::Figure read_figure(Spec& accelerator, const std::string& name, Read read) {
  Spec figure = accelerator.object(name);
  protocols::Figure out;
  out.value = read(figure);
  out.source = figure.string("source");
  figure.finish();
  return out;
}

}  // namespace

const keys::Object& profile_keys() {
  static const keys::Object profile{
      "profile",
      "A device profile: how fast one device does each kind of a node's work (docs/compute.md).",
      {keys::string("description", "What the profile describes.").may_be_absent(),
       keys::string("machine", "The machine it was measured on.").may_be_absent(),
       keys::string("command", "The command that measured it.").may_be_absent(),
       keys::speed("host_speed", "Model math (forward and backward passes), flop/s; not with accelerator.")
           .plain_number_allowed()
           .may_be_absent(),
       keys::bandwidth("memory_bandwidth",
                       "Vector arithmetic (mixing, averaging, updates, error feedback): bytes read and "
                       "written per second; not with accelerator.")
           .plain_number_allowed()
           .may_be_absent(),
       keys::object("accelerator", accelerator_keys(), accelerator_keys().help).may_be_absent(),
       keys::any("codecs", codecs_help() + " An accelerator profile may leave out any: they are estimated.")
           .shaped(codecs_shape(false))
           .may_be_absent()}};
  return profile;
}

DeviceProfile read_device_profile(const json& document, const std::string& origin) {
  json resolved;
  Spec spec(document, origin, "", resolved, profile_keys());
  for (const char* text : {"description", "machine"})
    if (spec.has(text)) spec.string(text);
  const std::string command = spec.has("command") ? spec.string("command") : "sgdsim calibrate";
  DeviceProfile profile;
  if (spec.has("accelerator")) {
    for (const char* key : {"host_speed", "memory_bandwidth"})
      if (spec.has(key))
        spec.fail(key, "an accelerator profile takes its speeds from its \"accelerator\" object; remove " +
                           std::string(key));
    Spec accelerator = spec.object("accelerator");
    protocols::Roofline& device = profile.roofline;
    device.peak = read_figure(accelerator, "peak", [](Spec& f) { return f.speed("value"); });
    device.efficiency = read_figure(accelerator, "efficiency", [](Spec& f) { return f.number("value"); });
    device.memory_bandwidth =
        read_figure(accelerator, "memory_bandwidth", [](Spec& f) { return f.bandwidth("value"); });
    device.launch_overhead =
        read_figure(accelerator, "launch_overhead", [](Spec& f) { return f.duration("value"); });
    device.bytes_per_value =
        read_figure(accelerator, "bytes_per_value", [](Spec& f) { return f.number("value"); });
    for (const protocols::Figure* figure : {&device.peak, &device.memory_bandwidth})
      if (!(figure->value > 0))
        accelerator.fail(figure == &device.peak ? "peak" : "memory_bandwidth", "must be above 0");
    accelerator.finish();
    device.profile = origin;
    profile.host_speed = device.efficiency.value * device.peak.value;
    profile.memory_bandwidth = device.memory_bandwidth.value;
  } else {
    profile.host_speed = spec.speed("host_speed");
    profile.memory_bandwidth = spec.bandwidth("memory_bandwidth");
  }
  // A table by kind (as earlier versions of `sgdsim calibrate` wrote it) prices each kind's first registered
  // example, which is what those versions measured.
  std::map<std::string, protocols::CodecSpeed> by_kind;
  read_codecs(spec, false, by_kind, profile.configurations, origin);
  for (auto& [configuration, price] : profile.configurations)
    if (price.source != origin) price.source = origin + ": " + price.source;
  for (const auto& [kind, speed] : by_kind) {
    const keys::Kind* registered = compression::compressors().find(kind);
    if (!registered || registered->examples.empty()) continue;
    const json example = registered->examples.front();
    profile.configurations
        [compression::priced_configuration(compression::resolved_configuration(example, origin)).dump()] = {
        speed, origin + ": codecs." + kind + ", measured with " + example.dump() + " by `" + command + "`"};
  }
  spec.finish();
  return profile;
}

}  // namespace sgdsim::sim
