#pragma once
// Scenario keys, declared once. A declaration gives a key's name, type, unit, default, range or choices and
// one line of help, beside the code that reads it. The reader (Spec) validates and fills defaults from it,
// `sgdsim schema` turns the declarations into the JSON Schema and `sgdsim docs` into the key reference, so
// the three can never disagree. Objects chosen by a discriminator ("kind", "schedule", "dataset") form a
// Family whose kinds register themselves from their own files, each with its keys, factory and capabilities.
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace sgdsim::keys {

using nlohmann::json;

enum class Type {
  boolean,
  integer,
  number,
  string,     // free text, or one of `choices`
  bandwidth,  // SimGrid unit string ("100Mbps"); a number of bytes/s only where plain_number is set
  duration,   // SimGrid unit string ("500us"), or 0; a number of seconds only where plain_number is set
  speed,      // SimGrid unit string ("10Gf"); a number of flop/s only where plain_number is set
  integers,   // array of integers
  object,     // nested object with its own declared keys
  objects,    // array of such objects
  variant,    // nested object of a Family, chosen by its discriminator
  variants,   // array of Family objects
  any,        // any JSON value whose shape the reading code checks (help says what)
};

struct Object;
class Family;

struct Key {
  std::string name;
  Type type = Type::any;
  std::string help;
  std::string unit;
  nlohmann::json fallback;  // the default; null when there is none
  std::string computed;     // when the reading code computes the default: what it is, in words
  bool optional = false;    // may be absent, with no default (the reading code decides)
  std::optional<double> min, max;
  bool min_open = false, max_open = false;
  std::vector<std::string> choices;          // Type::string: the allowed values
  std::size_t min_items = 0, max_items = 0;  // arrays; max 0 = unbounded
  const Object* object = nullptr;            // Type::object, Type::objects
  const Family* family = nullptr;            // Type::variant, Type::variants
  // Type::variant(s): kinds allowed here need this capability (per position for arrays; empty = any kind).
  std::vector<std::string> capability;
  bool file_path = false;  // Type::string naming a file, relative to the scenario's folder
  // Changes only the time axis (when things happen: bandwidths, latencies, speeds, prices), never what the
  // nodes compute; with every key inside it. Learning-affecting otherwise (the default).
  bool only_timing = false;
  nlohmann::json shape;  // Type::any: the JSON Schema of the values the reading code accepts (null: any)
  // Type::bandwidth, duration, speed: a plain number (in bytes/s, s or flop/s) is accepted too. Only for
  // files that programs write (device profiles); in what people write, 10000000000 could be bits or bytes per
  // second, and 0.5 seconds or milliseconds, so a number other than 0 is refused there.
  bool plain_number = false;

  Key& fallback_to(nlohmann::json value) {
    fallback = std::move(value);
    return *this;
  }
  Key& computed_default(std::string words) {
    computed = std::move(words);
    return *this;
  }
  Key& may_be_absent() {
    optional = true;
    return *this;
  }
  Key& in_unit(std::string u) {
    unit = std::move(u);
    return *this;
  }
  Key& plain_number_allowed() {
    plain_number = true;
    return *this;
  }
  Key& at_least(double v) { return bound_below(v, false); }
  Key& above(double v) { return bound_below(v, true); }
  Key& at_most(double v) { return bound_above(v, false); }
  Key& below(double v) { return bound_above(v, true); }
  Key& between(double lo, double hi) { return at_least(lo).at_most(hi); }
  Key& items(std::size_t lo, std::size_t hi) {
    min_items = lo, max_items = hi;
    return *this;
  }
  Key& must_be_given() {
    optional = false;
    return *this;
  }
  // Declares the key (and everything inside it) timing-only: see only_timing.
  Key& timing_only() {
    only_timing = true;
    return *this;
  }
  Key& shaped(nlohmann::json schema) {
    shape = std::move(schema);
    return *this;
  }
  // Only kinds of the key's family that have these capabilities (names the family knows; std::logic_error
  // otherwise).
  Key& needing(std::vector<std::string> capabilities);

  bool has_default() const { return !fallback.is_null(); }
  bool required() const { return fallback.is_null() && computed.empty() && !optional; }

 private:
  Key& bound_below(double v, bool open) {
    min = v, min_open = open;
    return *this;
  }
  Key& bound_above(double v, bool open) {
    max = v, max_open = open;
    return *this;
  }
};

Key boolean(std::string name, std::string help);
Key integer(std::string name, std::string help);
Key number(std::string name, std::string help);
Key string(std::string name, std::string help);
Key choice(std::string name, std::vector<std::string> choices, std::string help);
Key bandwidth(std::string name, std::string help);
Key duration(std::string name, std::string help);
Key speed(std::string name, std::string help);
Key integers(std::string name, std::string help);
Key object(std::string name, const Object& object, std::string help);
Key objects(std::string name, const Object& object, std::string help);
Key variant(std::string name, const Family& family, std::string help);
Key variants(std::string name, const Family& family, std::string help);
Key any(std::string name, std::string help);
// A string naming a file (relative paths resolve against the scenario's folder): tools that move scenarios
// (sweeps) rewrite these.
Key path(std::string name, std::string help);

// A fixed set of keys (an object without a discriminator).
struct Object {
  std::string name;  // for the reference and the schema's definitions ("link", "eval")
  std::string help;
  std::vector<Key> keys;
  const Key* find(std::string_view key) const;
};

// A fact the rest of the program may ask of a Family's kinds without knowing them ("fires_triggers",
// "convex"), with one line of help. A Family declares the ones it knows; a kind that declares, or code that
// asks for, a name its family does not know is a bug (std::logic_error at start-up or at the first question),
// so a typo never reads as false.
struct Capability {
  std::string name;
  std::string help;
};

// One kind of a Family: its name, help, keys and capabilities (names its family knows), and example objects
// of it that tests, fuzz targets and benchmarks iterate (so that a new kind is exercised everywhere without a
// second list).
struct Kind {
  std::string name;
  std::string help;
  std::vector<Key> keys;
  std::vector<std::string> capabilities;
  std::vector<nlohmann::json> examples = {};
  const Family* family = nullptr;  // set when the kind registers
  // Throws std::logic_error for a capability its family does not know.
  bool has(std::string_view capability) const;
  const Key* find(std::string_view key) const;
};

// A bare value allowed in place of the object: {discriminator: kind, key: value}, e.g. "lr": 0.1.
struct Shorthand {
  Type type;
  std::string kind;
  std::string key;  // empty: the value is the kind's name itself (e.g. "partition": "iid")
};

// Objects chosen by a discriminator key. Kinds add themselves (Registry::add) during static initialisation;
// listing is by name, so output never depends on link order.
class Family {
 public:
  // `default_kind`: the kind of an object without the discriminator (empty: the discriminator is required).
  // `capabilities`: the capability names its kinds may declare.
  Family(std::string name, std::string discriminator, std::string help, std::vector<Key> common = {},
         std::optional<Shorthand> shorthand = std::nullopt, std::string default_kind = {},
         std::vector<Capability> capabilities = {});
  Family(const Family&) = delete;
  Family& operator=(const Family&) = delete;
  virtual ~Family() = default;

  const std::string& name() const { return name_; }
  const std::string& discriminator() const { return discriminator_; }
  const std::string& help() const { return help_; }
  const std::vector<Key>& common() const { return common_; }
  const std::optional<Shorthand>& shorthand() const { return shorthand_; }
  const std::string& default_kind() const { return default_kind_; }
  const std::vector<Capability>& capabilities() const { return capabilities_; }
  bool knows(std::string_view capability) const;
  // Throws std::logic_error naming the family and what it knows, unless it knows `capability`.
  void require_known(std::string_view capability) const;
  // Every kind, sorted by name; or those having `capability` (one the family knows).
  std::vector<const Kind*> kinds(std::string_view capability = {}) const;
  std::vector<std::string> kind_names(std::string_view capability = {}) const;
  const Kind* find(std::string_view kind) const;

 protected:
  void add_kind(Kind kind);

 private:
  std::string name_, discriminator_, help_;
  std::vector<Key> common_;
  std::optional<Shorthand> shorthand_;
  std::string default_kind_;
  std::vector<Capability> capabilities_;
  std::map<std::string, Kind, std::less<>> kinds_;
};

// A Family whose kinds each come with a factory of type `Factory`.
template <typename Factory>
class Registry : public Family {
 public:
  using Family::Family;
  // Registers a kind; returns true so a file can write `const bool registered = family().add(...)`.
  bool add(Kind kind, Factory make) {
    const std::string name = kind.name;
    add_kind(std::move(kind));
    factories_.emplace(name, std::move(make));
    return true;
  }
  const Factory& factory(std::string_view kind) const {
    auto it = factories_.find(kind);
    if (it == factories_.end()) throw std::logic_error("no factory for kind " + std::string(kind));
    return it->second;
  }

 private:
  std::map<std::string, Factory, std::less<>> factories_;
};

// The root object of a document type (the scenario, a sweep file) and every Family reachable from it.
std::vector<const Family*> families_under(const Object& root);

// The declaration of the key at a dotted path ("network.link.bandwidth", "data.partition.alpha",
// "network.overrides.0.latency") of a document of `root`, following the kinds the document chooses (or the
// default kinds); nullptr when no such key is declared there. Tools use it to learn a key's type and unit
// instead of knowing scenario internals.
const Key* find_key(const Object& root, const nlohmann::json& document, std::string_view dotted);

// The kinds an object of `family` chooses: its own, then those of the Family objects among its keys,
// recursively (an algorithm: the protocol kind, its learning-rate schedule, its compressor, its
// collective, ...). Tools ask them for capabilities without knowing the kinds.
std::vector<const Kind*> chosen_kinds(const Family& family, const nlohmann::json& value);

// Whether the key at a dotted path of a document of `root` (as for find_key) changes only simulated time:
// it, or a key that contains it, is declared timing_only(). False for a learning-affecting key and for a path
// that declares no key.
bool timing_only(const Object& root, const nlohmann::json& document, std::string_view dotted);
// Whether setting the dotted path to `value` changes only simulated time: a timing-only key, or an object
// (a whole "compute") whose keys that are not timing-only keep their values, a key left out counting as its
// default.
bool timing_only_setting(const Object& root, const nlohmann::json& document, std::string_view dotted,
                         const nlohmann::json& value);

// The dotted paths of every value in `document` whose key is declared a file path (keys::path), following the
// kinds the document chooses.
std::vector<std::string> file_paths(const Object& root, const nlohmann::json& document);

}  // namespace sgdsim::keys
