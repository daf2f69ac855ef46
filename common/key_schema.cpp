#include "common/key_schema.hpp"

#include <set>

namespace sgdsim::keys {

namespace {

// The unit strings common/units.cpp accepts, which are SimGrid's (xbt/parse_units): optional leading white
// space, a number as strtod reads it (decimal or hexadecimal, never negative here), then the unit at once.
const char* const decimal = R"((?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)";
const char* const hexadecimal = R"(0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)";
// The same, with at least one non-zero digit before any exponent.
const char* const nonzero_decimal =
    R"((?=\.?[0-9]*\.?[0-9]*[1-9])(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)";
const char* const nonzero_hexadecimal =
    R"(0[xX](?=[0-9a-fA-F.]*[1-9a-fA-F])(?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)";

json unit_definition(const std::string& description, bool zero, const std::string& units) {
  const std::string number = zero ? std::string("(?:") + hexadecimal + "|" + decimal + ")"
                                  : std::string("(?:") + nonzero_hexadecimal + "|" + nonzero_decimal + ")";
  json plain = {{"type", "number"}};
  plain[zero ? "minimum" : "exclusiveMinimum"] = 0;
  return {{"description", description},
          {"anyOf", {{{"type", "string"}, {"pattern", R"(^\s*\+?)" + number + units + "$"}}, plain}}};
}

std::string description(const Key& key) {
  std::string text = key.help;
  if (!key.unit.empty() && key.type != Type::bandwidth && key.type != Type::duration &&
      key.type != Type::speed)
    text += " Unit: " + key.unit + ".";
  if (!key.computed.empty()) text += " Default: " + key.computed + ".";
  return text;
}

class Writer {
 public:
  json definitions = json::object();

  json object_schema(const std::vector<const Key*>& keys, const json& extra_properties = json::object()) {
    json properties = extra_properties;
    json required = json::array();
    for (const Key* key : keys) {
      properties[key->name] = key_schema(*key);
      if (key->required()) required.push_back(key->name);
    }
    json schema = {{"type", "object"}, {"additionalProperties", false}, {"properties", properties}};
    if (!required.empty()) schema["required"] = required;
    return schema;
  }

  json object_ref(const Object& object) {
    if (!definitions.contains(object.name)) {
      definitions[object.name] = json::object();  // placeholder against recursion
      std::vector<const Key*> keys;
      for (const Key& key : object.keys) keys.push_back(&key);
      json schema = object_schema(keys);
      schema["description"] = object.help;
      definitions[object.name] = schema;
    }
    return {{"$ref", "#/definitions/" + object.name}};
  }

  json family_ref(const Family& family) {
    if (!definitions.contains(family.name())) {
      definitions[family.name()] = json::object();
      definitions[family.name()] = family_schema(family);
    }
    return {{"$ref", "#/definitions/" + family.name()}};
  }

  json family_schema(const Family& family) {
    const std::string& d = family.discriminator();
    json kinds = family.kind_names();
    json all_of = json::array();
    for (const Kind* kind : family.kinds()) {
      std::vector<const Key*> keys;
      for (const Key& key : family.common()) keys.push_back(&key);
      for (const Key& key : kind->keys) keys.push_back(&key);
      // Each kind's keys get a definition of their own ("compressor.qsgd"), so that a reader finds them.
      const std::string name = family.name() + "." + kind->name;
      definitions[name] = object_schema(keys, {{d, {{"const", kind->name}}}});
      definitions[name]["description"] = kind->help;
      json condition = {{"properties", {{d, {{"const", kind->name}}}}}};
      // Without the discriminator an object is of the default kind, if the family has one.
      if (kind->name != family.default_kind()) condition["required"] = {d};
      all_of.push_back({{"if", condition}, {"then", {{"$ref", "#/definitions/" + name}}}});
    }
    json object = {{"type", "object"},
                   {"description", family.help()},
                   {"properties", {{d, {{"enum", kinds}}}}},
                   {"allOf", all_of}};
    if (family.default_kind().empty())
      object["required"] = {d};
    else
      object["properties"][d]["default"] = family.default_kind();
    if (!family.shorthand()) return object;
    const Shorthand& shorthand = *family.shorthand();
    json bare;
    if (shorthand.type == Type::number) {
      bare = {{"type", "number"}};
      for (const Key& key : family.common())
        if (key.name == shorthand.key) bare = key_schema(key);
      if (const Kind* kind = family.find(shorthand.kind)) {
        if (const Key* key = kind->find(shorthand.key)) bare = key_schema(*key);
      }
      bare["description"] =
          "Shorthand for {\"" + d + "\": \"" + shorthand.kind + "\", \"" + shorthand.key + "\": value}.";
    } else {
      bare = {{"enum", kinds}, {"description", "Shorthand for {\"" + d + "\": name}."}};
      json allowed = json::array();
      for (const Kind* kind : family.kinds()) {
        bool needs_more = false;
        for (const Key& key : kind->keys) needs_more = needs_more || key.required();
        if (!needs_more) allowed.push_back(kind->name);
      }
      bare["enum"] = allowed;
    }
    return {{"description", family.help()}, {"oneOf", {bare, object}}};
  }

  json key_schema(const Key& key) {
    json s;
    switch (key.type) {
      case Type::boolean:
        s = {{"type", "boolean"}};
        break;
      case Type::integer:
      case Type::number:
        s = {{"type", key.type == Type::integer ? "integer" : "number"}};
        if (key.min) s[key.min_open ? "exclusiveMinimum" : "minimum"] = *key.min;
        if (key.max && *key.max < 9.2e18) s[key.max_open ? "exclusiveMaximum" : "maximum"] = *key.max;
        if (key.type == Type::integer) {
          if (key.min) s[key.min_open ? "exclusiveMinimum" : "minimum"] = static_cast<std::int64_t>(*key.min);
          if (key.max && *key.max < 9.2e18) s["maximum"] = static_cast<std::int64_t>(*key.max);
        }
        break;
      case Type::string:
        s = key.choices.empty() ? json{{"type", "string"}} : json{{"enum", key.choices}};
        break;
      case Type::bandwidth:
      case Type::duration:
      case Type::speed: {
        const char* unit = key.type == Type::bandwidth  ? "bandwidth"
                           : key.type == Type::duration ? "duration"
                                                        : "speed";
        // A plain number must lie in the key's range (strings are checked by the loader, after parsing).
        json range = json::object();
        if (key.min) range["minimum"] = *key.min;
        if (key.max) range["maximum"] = *key.max;
        if (key.type == Type::duration) range = {{"anyOf", {{{"const", 0}}, range}}};
        // Where people write the value, a plain number is refused (it does not say bits or bytes, seconds
        // or milliseconds); 0 is unambiguous.
        if (!key.plain_number)
          range = key.type == Type::duration ? json{{"const", 0}} : json{{"not", json::object()}};
        s = {{"allOf", {unit_ref(unit), {{"if", {{"type", "number"}}}, {"then", range}}}}};
        break;
      }
      case Type::integers: {
        json item = {{"type", "integer"}};
        if (key.min) item["minimum"] = static_cast<std::int64_t>(*key.min);
        if (key.max && *key.max < 9.2e18) item["maximum"] = static_cast<std::int64_t>(*key.max);
        s = {{"type", "array"}, {"items", item}, {"minItems", std::max<std::size_t>(1, key.min_items)}};
        if (key.max_items > 0) s["maxItems"] = key.max_items;
        break;
      }
      case Type::object:
        s = {{"allOf", {object_ref(*key.object)}}};
        break;
      case Type::objects:
        s = {{"type", "array"}, {"items", object_ref(*key.object)}};
        break;
      case Type::variant:
        s = {{"allOf", {restricted(*key.family, key.capability.empty() ? "" : key.capability.front())}}};
        break;
      case Type::variants: {
        s = {{"type", "array"}};
        if (!key.capability.empty() && key.capability.size() == key.max_items) {
          json items = json::array();
          for (const auto& capability : key.capability) items.push_back(restricted(*key.family, capability));
          s["items"] = items;
        } else {
          s["items"] = family_ref(*key.family);
        }
        if (key.min_items > 0) s["minItems"] = key.min_items;
        if (key.max_items > 0) s["maxItems"] = key.max_items;
        break;
      }
      case Type::any:
        s = key.shape.is_null() ? json::object() : key.shape;
        break;
    }
    s["description"] = description(key);
    if (key.has_default()) s["default"] = key.fallback;
    // An annotation for tools: the loader fills this key in, but with a value the schema cannot state.
    if (!key.computed.empty()) s["x-computed-default"] = key.computed;
    // An annotation for tools: the key (and all inside it) changes only simulated time, never what is
    // learned.
    if (key.only_timing) s["x-timing-only"] = true;
    return s;
  }

 private:
  json restricted(const Family& family, const std::string& capability) {
    json ref = family_ref(family);
    if (capability.empty()) return ref;
    return {{"allOf",
             {ref, {{"properties", {{family.discriminator(), {{"enum", family.kind_names(capability)}}}}}}}}};
  }

  json unit_ref(const std::string& name) {
    if (!definitions.contains(name)) {
      if (name == "bandwidth")
        definitions[name] = unit_definition(
            "A bandwidth as SimGrid writes it: \"100Mbps\" (bits/s) or \"10MBps\" (bytes/s), SI prefixes k M "
            "G T P "
            "E Z Y or binary Ki Mi Gi Ti Pi Ei Zi Yi, no space before the unit; or a plain number in "
            "bytes/s. "
            "Must be greater than 0.",
            false, "(?:[kMGTPEZY]|[KMGTPEZY]i)?[bB]ps");
      else if (name == "duration")
        definitions[name] = unit_definition(
            "A duration as SimGrid writes it: \"500us\", \"1ms\", \"2s\" (units ps ns us ms s m h d w), no "
            "space "
            "before the unit; or a plain number in seconds. Zero is allowed.",
            true, "(?:ps|ns|us|ms|s|m|h|d|w)");
      else
        definitions[name] = unit_definition(
            "A computing speed as SimGrid writes it: \"10Gf\" (flop/s, SI prefixes k M G T P E Z Y) or "
            "\"1gigaflops\" (kilo mega giga tera peta exa zetta yotta), no space before the unit; or a plain "
            "number in flop/s. Must be greater than 0.",
            false, "(?:[kMGTPEZY]?f|(?:kilo|mega|giga|tera|peta|exa|zetta|yotta)?flops)");
    }
    return {{"$ref", "#/definitions/" + name}};
  }
};

}  // namespace

json json_schema(const Object& root, const std::string& title) {
  Writer writer;
  std::vector<const Key*> keys;
  for (const Key& key : root.keys) keys.push_back(&key);
  json schema = writer.object_schema(keys);
  json out = {
      {"$schema", "http://json-schema.org/draft-07/schema#"}, {"title", title}, {"description", root.help}};
  for (auto& [k, v] : schema.items()) out[k] = v;
  out["definitions"] = writer.definitions;
  return out;
}

}  // namespace sgdsim::keys
