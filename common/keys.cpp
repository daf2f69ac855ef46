#include "common/keys.hpp"

#include <algorithm>
#include <set>

#include "common/dotted_path.hpp"

namespace sgdsim::keys {

namespace {
Key make(std::string name, Type type, std::string help) {
  Key key;
  key.name = std::move(name);
  key.type = type;
  key.help = std::move(help);
  return key;
}

const Key* find_in(const std::vector<Key>& keys, std::string_view name) {
  for (const Key& key : keys)
    if (key.name == name) return &key;
  return nullptr;
}
}  // namespace

Key boolean(std::string name, std::string help) {
  return make(std::move(name), Type::boolean, std::move(help));
}
Key integer(std::string name, std::string help) {
  return make(std::move(name), Type::integer, std::move(help));
}
Key number(std::string name, std::string help) {
  return make(std::move(name), Type::number, std::move(help));
}
Key string(std::string name, std::string help) {
  return make(std::move(name), Type::string, std::move(help));
}
Key choice(std::string name, std::vector<std::string> choices, std::string help) {
  Key key = make(std::move(name), Type::string, std::move(help));
  key.choices = std::move(choices);
  return key;
}
// Physical quantities are bounded to what SimGrid computes with: a subnormal bandwidth makes its solver
// abort, a latency of 1e308 s never ends. The bounds are in base units and appear in the schema and the
// reference.
Key bandwidth(std::string name, std::string help) {
  return make(std::move(name), Type::bandwidth, std::move(help)).in_unit("byte/s").between(1e-3, 1e15);
}
Key duration(std::string name, std::string help) {
  // Zero is allowed too (a link without latency).
  return make(std::move(name), Type::duration, std::move(help)).in_unit("s").between(1e-12, 1e6);
}
Key speed(std::string name, std::string help) {
  return make(std::move(name), Type::speed, std::move(help)).in_unit("flop/s").between(1, 1e30);
}
Key integers(std::string name, std::string help) {
  return make(std::move(name), Type::integers, std::move(help));
}
Key object(std::string name, const Object& object, std::string help) {
  Key key = make(std::move(name), Type::object, std::move(help));
  key.object = &object;
  key.optional = true;  // absent: an empty object, i.e. every default
  return key;
}
Key objects(std::string name, const Object& object, std::string help) {
  Key key = make(std::move(name), Type::objects, std::move(help));
  key.object = &object;
  key.optional = true;  // absent: none
  return key;
}
Key variant(std::string name, const Family& family, std::string help) {
  Key key = make(std::move(name), Type::variant, std::move(help));
  key.family = &family;
  return key;
}
Key variants(std::string name, const Family& family, std::string help) {
  Key key = make(std::move(name), Type::variants, std::move(help));
  key.family = &family;
  return key;
}
Key any(std::string name, std::string help) {
  return make(std::move(name), Type::any, std::move(help));
}
Key path(std::string name, std::string help) {
  Key key = make(std::move(name), Type::string, std::move(help));
  key.file_path = true;
  return key;
}

const Key* Object::find(std::string_view key) const {
  return find_in(keys, key);
}

Key& Key::needing(std::vector<std::string> capabilities) {
  if (family)
    for (const std::string& name : capabilities) family->require_known(name);
  capability = std::move(capabilities);
  return *this;
}

bool Kind::has(std::string_view capability) const {
  if (family) family->require_known(capability);
  return std::find(capabilities.begin(), capabilities.end(), capability) != capabilities.end();
}

const Key* Kind::find(std::string_view key) const {
  return find_in(keys, key);
}

Family::Family(std::string name, std::string discriminator, std::string help, std::vector<Key> common,
               std::optional<Shorthand> shorthand, std::string default_kind,
               std::vector<Capability> capabilities)
    : name_(std::move(name)),
      discriminator_(std::move(discriminator)),
      help_(std::move(help)),
      common_(std::move(common)),
      shorthand_(std::move(shorthand)),
      default_kind_(std::move(default_kind)),
      capabilities_(std::move(capabilities)) {}

bool Family::knows(std::string_view capability) const {
  return std::any_of(capabilities_.begin(), capabilities_.end(),
                     [&](const Capability& known) { return known.name == capability; });
}

namespace {
std::string names_of(const std::vector<Capability>& capabilities) {
  std::string out;
  for (const Capability& c : capabilities) out += (out.empty() ? "" : ", ") + c.name;
  return out.empty() ? "none" : out;
}
}  // namespace

void Family::require_known(std::string_view capability) const {
  if (!knows(capability))
    throw std::logic_error("the " + name_ + " family knows no capability \"" + std::string(capability) +
                           "\" (it knows: " + names_of(capabilities_) + ")");
}

void Family::add_kind(Kind kind) {
  const std::string name = kind.name;
  for (const std::string& capability : kind.capabilities)
    if (!knows(capability))
      throw std::logic_error(name_ + " kind \"" + name + "\" declares the capability \"" + capability +
                             "\", which the " + name_ +
                             " family does not know (it knows: " + names_of(capabilities_) + ")");
  kind.family = this;
  if (!kinds_.emplace(name, std::move(kind)).second)
    throw std::logic_error(name_ + " kind \"" + name + "\" is registered twice");
}

std::vector<const Kind*> Family::kinds(std::string_view capability) const {
  if (!capability.empty()) require_known(capability);
  std::vector<const Kind*> out;
  for (const auto& [name, kind] : kinds_)
    if (capability.empty() || kind.has(capability)) out.push_back(&kind);
  return out;
}

std::vector<std::string> Family::kind_names(std::string_view capability) const {
  std::vector<std::string> out;
  for (const Kind* kind : kinds(capability)) out.push_back(kind->name);
  return out;
}

const Kind* Family::find(std::string_view kind) const {
  auto it = kinds_.find(kind);
  return it == kinds_.end() ? nullptr : &it->second;
}

namespace {
void collect(const std::vector<Key>& keys, std::vector<const Family*>& out, std::set<const void*>& seen);

void collect_family(const Family& family, std::vector<const Family*>& out, std::set<const void*>& seen) {
  if (!seen.insert(&family).second) return;
  out.push_back(&family);
  collect(family.common(), out, seen);
  for (const Kind* kind : family.kinds()) collect(kind->keys, out, seen);
}

void collect(const std::vector<Key>& keys, std::vector<const Family*>& out, std::set<const void*>& seen) {
  for (const Key& key : keys) {
    if (key.object && seen.insert(key.object).second) collect(key.object->keys, out, seen);
    if (key.family) collect_family(*key.family, out, seen);
  }
}
}  // namespace

std::vector<const Family*> families_under(const Object& root) {
  std::vector<const Family*> out;
  std::set<const void*> seen;
  collect(root.keys, out, seen);
  return out;
}

namespace {
// The kind `value` chooses in `family` (its discriminator, a shorthand or the default kind), if any.
const Kind* kind_of(const Family& family, const json& value) {
  std::string kind = family.default_kind();
  if (value.is_object() && value.contains(family.discriminator()) &&
      value[family.discriminator()].is_string())
    kind = value[family.discriminator()].get<std::string>();
  else if (family.shorthand() && value.is_string() && family.shorthand()->key.empty())
    kind = value.get<std::string>();
  else if (family.shorthand() && value.is_number())
    kind = family.shorthand()->kind;
  return family.find(kind);
}

// The keys declared for one object of `family`, as `value` chooses its kind.
std::vector<const Key*> keys_of(const Family& family, const json& value) {
  std::vector<const Key*> out;
  for (const Key& key : family.common()) out.push_back(&key);
  if (const Kind* found = kind_of(family, value))
    for (const Key& key : found->keys) out.push_back(&key);
  return out;
}

void collect_kinds(const std::vector<const Key*>& declared, const json& node, std::vector<const Kind*>& out);

void collect_kind(const Family& family, const json& value, std::vector<const Kind*>& out) {
  if (const Kind* kind = kind_of(family, value)) out.push_back(kind);
  collect_kinds(keys_of(family, value), value, out);
}

void collect_kinds(const std::vector<const Key*>& declared, const json& node, std::vector<const Kind*>& out) {
  if (!node.is_object()) return;
  for (const Key* key : declared) {
    auto it = node.find(key->name);
    if (it == node.end()) continue;
    std::vector<const Key*> inner;
    switch (key->type) {
      case Type::object:
        for (const Key& k : key->object->keys) inner.push_back(&k);
        collect_kinds(inner, *it, out);
        break;
      case Type::variant:
        collect_kind(*key->family, *it, out);
        break;
      case Type::objects:
        if (!it->is_array()) break;
        for (const Key& k : key->object->keys) inner.push_back(&k);
        for (const json& element : *it) collect_kinds(inner, element, out);
        break;
      case Type::variants:
        if (!it->is_array()) break;
        for (const json& element : *it) collect_kind(*key->family, element, out);
        break;
      default:
        break;
    }
  }
}
}  // namespace

std::vector<const Kind*> chosen_kinds(const Family& family, const json& value) {
  std::vector<const Kind*> out;
  collect_kind(family, value, out);
  return out;
}

namespace {
// The declarations along a dotted path (find_key's walk): every key from the root to the path's last
// segment, ending in nullptr when the path ends at an element of an array; empty when the path declares
// nothing.
std::vector<const Key*> key_path(const Object& root, const json& document, std::string_view dotted) {
  std::vector<const Key*> chain;
  std::vector<const Key*> declared;
  for (const Key& key : root.keys) declared.push_back(&key);
  const json* node = &document;
  static const json absent;
  const Key* list = nullptr;  // the array key whose element the next segment indexes
  std::size_t begin = 0;
  while (begin <= dotted.size()) {
    const std::size_t end = std::min(dotted.find('.', begin), dotted.size());
    const std::string segment(dotted.substr(begin, end - begin));
    const bool last = end == dotted.size();
    begin = end + 1;
    if (list) {
      // An element of an array of objects: the segment is its index.
      if (segment.empty() || segment.find_first_not_of("0123456789") != std::string::npos) return {};
      const std::size_t index = std::stoul(segment);
      node = node->is_array() && index < node->size() ? &(*node)[index] : &absent;
      declared.clear();
      if (list->type == Type::objects)
        for (const Key& key : list->object->keys) declared.push_back(&key);
      else
        declared = keys_of(*list->family, *node);
      list = nullptr;
      if (last) {
        chain.push_back(nullptr);  // an element, not a key: inside the array's key
        return chain;
      }
      continue;
    }
    const Key* key = nullptr;
    for (const Key* k : declared)
      if (k->name == segment) key = k;
    if (!key) return {};
    chain.push_back(key);
    if (last) return chain;
    node = node->is_object() && node->contains(segment) ? &(*node)[segment] : &absent;
    switch (key->type) {
      case Type::object:
        declared.clear();
        for (const Key& k : key->object->keys) declared.push_back(&k);
        break;
      case Type::variant:
        declared = keys_of(*key->family, *node);
        break;
      case Type::objects:
      case Type::variants:
        list = key;
        break;
      default:
        return {};
    }
  }
  return {};
}
}  // namespace

const Key* find_key(const Object& root, const json& document, std::string_view dotted) {
  const std::vector<const Key*> chain = key_path(root, document, dotted);
  return chain.empty() ? nullptr : chain.back();
}

bool timing_only(const Object& root, const json& document, std::string_view dotted) {
  const std::vector<const Key*> chain = key_path(root, document, dotted);
  return std::any_of(chain.begin(), chain.end(), [](const Key* key) { return key && key->only_timing; });
}

bool timing_only_setting(const Object& root, const json& document, std::string_view dotted,
                         const json& value) {
  if (timing_only(root, document, dotted)) return true;
  const Key* key = find_key(root, document, dotted);
  if (!key || key->type != Type::object || !key->object || !value.is_object()) return false;
  const json* before = find_dotted(document, std::string(dotted));
  for (const Key& inner : key->object->keys) {
    if (inner.only_timing) continue;
    const json old = before && before->is_object() && before->contains(inner.name) ? before->at(inner.name)
                                                                                   : inner.fallback;
    const json now = value.contains(inner.name) ? value.at(inner.name) : inner.fallback;
    if (old != now) return false;
  }
  return true;
}

namespace {
void collect_paths(const std::vector<const Key*>& declared, const json& node, const std::string& prefix,
                   std::vector<std::string>& out) {
  if (!node.is_object()) return;
  for (const Key* key : declared) {
    auto it = node.find(key->name);
    if (it == node.end()) continue;
    const std::string here = prefix.empty() ? key->name : prefix + "." + key->name;
    if (key->file_path && it->is_string()) out.push_back(here);
    std::vector<const Key*> inner;
    switch (key->type) {
      case Type::object:
        for (const Key& k : key->object->keys) inner.push_back(&k);
        collect_paths(inner, *it, here, out);
        break;
      case Type::variant:
        collect_paths(keys_of(*key->family, *it), *it, here, out);
        break;
      case Type::objects:
      case Type::variants:
        if (!it->is_array()) break;
        for (std::size_t i = 0; i < it->size(); ++i) {
          inner.clear();
          if (key->type == Type::objects)
            for (const Key& k : key->object->keys) inner.push_back(&k);
          else
            inner = keys_of(*key->family, (*it)[i]);
          collect_paths(inner, (*it)[i], here + "." + std::to_string(i), out);
        }
        break;
      default:
        break;
    }
  }
}
}  // namespace

std::vector<std::string> file_paths(const Object& root, const json& document) {
  std::vector<const Key*> declared;
  for (const Key& key : root.keys) declared.push_back(&key);
  std::vector<std::string> out;
  collect_paths(declared, document, "", out);
  return out;
}

}  // namespace sgdsim::keys
