// Markdown key reference from the declarations (see key_schema.hpp).
#include <set>
#include <sstream>

#include "common/key_schema.hpp"

namespace sgdsim::keys {

namespace {

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

std::string type_text(const Key& key) {
  switch (key.type) {
    case Type::boolean:
      return "boolean";
    case Type::integer:
      return "integer";
    case Type::number:
      return "number";
    case Type::string:
      return "string";
    case Type::bandwidth:
      return "bandwidth";
    case Type::duration:
      return "duration";
    case Type::speed:
      return "speed";
    case Type::integers:
      return "integer array";
    case Type::object:
      return "object `" + key.object->name + "`";
    case Type::objects:
      return "array of `" + key.object->name + "`";
    case Type::variant:
      return "a `" + key.family->name() + "` kind";
    case Type::variants:
      return "array of `" + key.family->name() + "` kinds";
    case Type::any:
      return "see text";
  }
  return "";
}

std::string allowed_text(const Key& key) {
  std::string text;
  if (!key.choices.empty()) {
    for (const auto& c : key.choices) text += (text.empty() ? "" : ", ") + ("`" + c + "`");
  } else if (key.min || key.max) {
    const bool integral = key.type == Type::integer || key.type == Type::integers;
    auto show = [&](double v) {
      return integral ? std::to_string(static_cast<long long>(v)) : number_text(v);
    };
    if (key.min && !key.max)
      text = (key.min_open ? "> " : "≥ ") + show(*key.min);
    else if (!key.min || (integral && *key.min < -9.2e18))
      text = (key.max_open ? "< " : "≤ ") + show(*key.max);
    else if (integral && *key.max >= 9.2e18)
      text = "≥ " + show(*key.min);
    else
      text = std::string(key.min_open ? "(" : "[") + show(*key.min) + ", " + show(*key.max) +
             (key.max_open ? ")" : "]");
  }
  if (key.type == Type::duration && key.min && *key.min > 0) text = "0 or " + text;
  if (key.max_items > 0 && key.min_items == key.max_items)
    text += (text.empty() ? "" : "; ") + std::to_string(key.min_items) + " items";
  else if (key.min_items > 1 || key.max_items > 0)
    text += (text.empty() ? "" : "; ") + std::to_string(key.min_items) + ".." +
            (key.max_items ? std::to_string(key.max_items) : std::string("n")) + " items";
  if (!key.capability.empty()) {
    std::string kinds;
    for (const auto& c : key.capability)
      kinds += (kinds.empty() ? "" : ", then ") + ("kinds with `" + c + "`");
    text += (text.empty() ? "" : "; ") + kinds;
  }
  if (!key.unit.empty()) text += (text.empty() ? "" : "; ") + std::string("unit: ") + key.unit;
  return text;
}

std::string default_text(const Key& key) {
  if (key.has_default()) {
    std::string text =
        "`";  // built piecewise: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&
    text += key.fallback.dump();
    return text + "`";
  }
  if (!key.computed.empty()) return key.computed;
  if (key.type == Type::object) return "all defaults";
  if (key.optional) return "absent";
  return "**required**";
}

// Table cells must not contain a bare '|'.
std::string cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

void table(std::ostringstream& out, const std::vector<const Key*>& keys) {
  if (keys.empty()) {
    out << "No keys.\n\n";
    return;
  }
  out << "| key | type | default | allowed | meaning |\n|---|---|---|---|---|\n";
  for (const Key* key : keys) {
    out << "| `" << key->name << "` | " << cell(type_text(*key)) << " | " << cell(default_text(*key)) << " | "
        << cell(allowed_text(*key)) << " | " << cell(key->help) << (key->only_timing ? " *Timing only.*" : "")
        << " |\n";
  }
  out << "\n";
}

std::vector<const Key*> pointers(const std::vector<Key>& keys) {
  std::vector<const Key*> out;
  for (const Key& key : keys) out.push_back(&key);
  return out;
}

void family_section(std::ostringstream& out, const Family& family, const std::string& only_kind,
                    const std::string& heading) {
  if (only_kind.empty()) {
    out << heading << " `" << family.name() << "`: chosen by `" << family.discriminator() << "`\n\n"
        << family.help() << "\n\n";
    if (family.shorthand()) {
      const Shorthand& s = *family.shorthand();
      out << "Shorthand: a bare " << (s.type == Type::number ? "number" : "string") << " stands for "
          << (s.key.empty()
                  ? "`{\"" + family.discriminator() + "\": value}`"
                  : "`{\"" + family.discriminator() + "\": \"" + s.kind + "\", \"" + s.key + "\": value}`")
          << ".\n\n";
    }
    if (!family.default_kind().empty())
      out << "Without `" << family.discriminator() << "` the kind is `" << family.default_kind() << "`.\n\n";
    if (!family.common().empty()) {
      out << "Keys of every kind:\n\n";
      table(out, pointers(family.common()));
    }
    if (!family.capabilities().empty()) {
      out << "Capabilities a kind may have:\n\n";
      for (const Capability& c : family.capabilities()) out << "* `" << c.name << "`: " << c.help << "\n";
      out << "\n";
    }
  }
  for (const Kind* kind : family.kinds()) {
    if (!only_kind.empty() && kind->name != only_kind) continue;
    out << heading << "# `" << family.discriminator() << "`: `" << kind->name << "`\n\n"
        << kind->help << "\n\n";
    if (!kind->capabilities.empty()) {
      out << "Capabilities:";
      for (const auto& c : kind->capabilities) out << " `" << c << "`";
      out << "\n\n";
    }
    if (!only_kind.empty() && !family.common().empty()) {
      out << "Keys of every " << family.name() << ":\n\n";
      table(out, pointers(family.common()));
      out << "Keys of `" << kind->name << "`:\n\n";
    }
    table(out, pointers(kind->keys));
  }
}

}  // namespace

std::string family_reference(const Family& family, const std::string& kind) {
  std::ostringstream out;
  family_section(out, family, kind, "#");
  return out.str();
}

std::string key_reference(const Object& root, const std::string& title, const std::string& introduction) {
  std::ostringstream out;
  out << "# " << title << "\n\n" << introduction << "\n\n## The document\n\n" << root.help << "\n\n";
  table(out, pointers(root.keys));
  // Nested objects in order of first appearance, then every family.
  std::vector<const Object*> objects;
  std::set<const void*> seen;
  std::vector<const std::vector<Key>*> pending = {&root.keys};
  for (std::size_t i = 0; i < pending.size(); ++i) {
    for (const Key& key : *pending[i]) {
      if (key.object && seen.insert(key.object).second) {
        objects.push_back(key.object);
        pending.push_back(&key.object->keys);
      }
      if (key.family && seen.insert(key.family).second) {
        pending.push_back(&key.family->common());
        for (const Kind* kind : key.family->kinds()) pending.push_back(&kind->keys);
      }
    }
  }
  for (const Object* object : objects) {
    out << "## Object `" << object->name << "`\n\n" << object->help << "\n\n";
    table(out, pointers(object->keys));
  }
  for (const Family* family : families_under(root)) family_section(out, *family, {}, "##");
  return out.str();
}

}  // namespace sgdsim::keys
