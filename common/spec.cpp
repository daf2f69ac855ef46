#include "common/spec.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>

#include "common/error.hpp"
#include "common/regular_file.hpp"
#include "common/units.hpp"
#include "common/utf8.hpp"

namespace sgdsim {

std::string describe(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "the string " + value.dump();
    case json::value_t::boolean:
      return std::string("the boolean ") + (value.get<bool>() ? "true" : "false");
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return "the number " + value.dump();
    default:
      return "an unsupported value";
  }
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "" : ", ") + ("\"" + name + "\"");
  return list;
}

namespace {
std::vector<const keys::Key*> pointers(const std::vector<keys::Key>& keys) {
  std::vector<const keys::Key*> out;
  for (const keys::Key& key : keys) out.push_back(&key);
  return out;
}

std::string nearest_of(const std::string& given, const std::vector<std::string>& known, std::size_t best) {
  std::string nearest;
  for (const auto& k : known) {
    if (auto d = edit_distance(k, given); d < best) best = d, nearest = k;
  }
  return nearest;
}

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// "a number in [0, 1]", "a number in (0, 1]", "a number greater than 0", ...
std::string number_range(const keys::Key& d) {
  const double lo = d.min.value_or(-std::numeric_limits<double>::infinity());
  const double hi = d.max.value_or(std::numeric_limits<double>::infinity());
  if (d.min_open && !d.max) return "a number greater than " + number_text(lo);
  return std::string("a number in ") + (d.min_open ? "(" : "[") + number_text(lo) + ", " + number_text(hi) +
         (d.max_open ? ")" : "]");
}

bool in_range(const keys::Key& d, double v) {
  if (d.min && (d.min_open ? !(v > *d.min) : !(v >= *d.min))) return false;
  if (d.max && (d.max_open ? !(v < *d.max) : !(v <= *d.max))) return false;
  return true;
}

std::int64_t integer_min(const keys::Key& d) {
  return d.min ? static_cast<std::int64_t>(*d.min) : std::numeric_limits<std::int64_t>::min();
}
std::int64_t integer_max(const keys::Key& d) {
  // 2^63 does not fit: a declared maximum at or above it means "no maximum".
  return d.max && *d.max < 9.2e18 ? static_cast<std::int64_t>(*d.max)
                                  : std::numeric_limits<std::int64_t>::max();
}

// An integer, or an integral float such as 4.0; nullopt otherwise (or when it does not fit in int64).
std::optional<std::int64_t> as_integer(const json& v) {
  if (v.is_number_unsigned()) {
    if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return std::nullopt;
    return static_cast<std::int64_t>(v.get<std::uint64_t>());
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float() && std::isfinite(v.get<double>()) &&
      std::floor(v.get<double>()) == v.get<double>() && std::abs(v.get<double>()) < 9e15)
    return static_cast<std::int64_t>(v.get<double>());
  return std::nullopt;
}
}  // namespace

Spec::Spec(const json& value, std::string file, std::string path, json& resolved,
           std::vector<const keys::Key*> declared)
    : value_(&value),
      file_(std::move(file)),
      path_(std::move(path)),
      resolved_(&resolved),
      declared_(std::move(declared)) {
  if (!value_->is_object()) {
    throw InputError(where() + ": expected an object, found " + describe(*value_));
  }
  if (!resolved_->is_object()) *resolved_ = json::object();
}

Spec::Spec(const json& value, std::string file, std::string path, json& resolved,
           const keys::Object& declared)
    : Spec(value, std::move(file), std::move(path), resolved, pointers(declared.keys)) {}

Spec Spec::of_family(const json& value, std::string file, std::string path, json& resolved,
                     const keys::Family& family, const std::string& capability) {
  std::shared_ptr<const json> owned;
  const json* object = &value;
  if (!value.is_object()) {
    const auto& shorthand = family.shorthand();
    const bool fits = shorthand && ((shorthand->type == keys::Type::number && value.is_number()) ||
                                    (shorthand->type == keys::Type::string && value.is_string()));
    if (!fits) {
      std::string what = "an object with \"" + family.discriminator() + "\"";
      if (shorthand) what = (shorthand->type == keys::Type::number ? "a number or " : "a string or ") + what;
      throw InputError(file + ": " + (path.empty() ? "$" : path) + ": expected " + what + ", found " +
                       describe(value));
    }
    json expanded = json::object();
    if (shorthand->key.empty()) {
      expanded[family.discriminator()] = value;
    } else {
      expanded[family.discriminator()] = shorthand->kind;
      expanded[shorthand->key] = value;
    }
    owned = std::make_shared<const json>(std::move(expanded));
    object = owned.get();
  }
  Spec spec(*object, std::move(file), std::move(path), resolved, std::vector<const keys::Key*>{});
  spec.owned_ = std::move(owned);
  spec.enter_family(family, capability);
  return spec;
}

void Spec::enter_family(const keys::Family& family, const std::string& capability) {
  family_ = &family;
  const std::string& key = family.discriminator();
  const std::vector<std::string> names = family.kind_names(capability);
  read_.insert(key);
  const json* v = peek(key);
  const json default_kind = family.default_kind();
  if (!v && !family.default_kind().empty()) v = &default_kind;
  if (!v || !v->is_string()) expected(key, "one of " + quoted_list(names));
  const std::string given = v->get<std::string>();
  const keys::Kind* kind = family.find(given);
  if (!kind || (!capability.empty() && !kind->has(capability))) {
    const std::string nearest = nearest_of(given, names, 3);
    fail(key, "expected one of " + quoted_list(names) + ", found \"" + given + "\"" +
                  (nearest.empty() ? "" : " (did you mean \"" + nearest + "\"?)"));
  }
  kind_ = kind;
  (*resolved_)[key] = given;
  declared_ = pointers(family.common());
  for (const keys::Key& k : kind->keys) declared_.push_back(&k);
}

const std::string& Spec::kind_name() const {
  static const std::string none;
  return kind_ ? kind_->name : none;
}

std::string Spec::where(const std::string& key) const {
  std::string p = path_.empty() ? "$" : path_;
  if (!key.empty()) p += "." + key;
  return file_ + ": " + p;
}

bool Spec::has(const std::string& key) const {
  return value_->contains(key);
}

const json* Spec::peek(const std::string& key) const {
  auto it = value_->find(key);
  return it == value_->end() ? nullptr : &*it;
}

const keys::Key& Spec::declaration(const std::string& key) const {
  for (const keys::Key* k : declared_)
    if (k->name == key) return *k;
  // Reading an undeclared key is a bug in the reading code, not bad input.
  throw std::logic_error(where(key) + ": the key is read but not declared");
}

const json* Spec::lookup(const std::string& key) {
  read_.insert(key);
  return peek(key);
}

json Spec::fallback(const keys::Key& declared, const std::optional<json>& computed) const {
  if (computed) {
    if (declared.computed.empty())
      throw std::logic_error(where(declared.name) + ": a computed default for a key declared without one");
    return *computed;
  }
  return declared.fallback;
}

void Spec::echo(const std::string& key, const json& value) {
  declaration(key);
  read_.insert(key);
  (*resolved_)[key] = value;
}

void Spec::fail(const std::string& key, const std::string& message) const {
  throw InputError(where(key) + ": " + message);
}

void Spec::expected(const std::string& key, const std::string& what) const {
  const json* v = peek(key);
  fail(key,
       "expected " + what + ", found " + (v ? describe(*v) : std::string("nothing (the key is required)")));
}

std::string Spec::string(const std::string& key, const std::optional<std::string>& computed) {
  const keys::Key& d = declaration(key);
  const json* v = lookup(key);
  const std::string what = d.choices.empty() ? "a string" : "one of " + quoted_list(d.choices);
  json value = v ? *v : fallback(d, computed ? std::optional<json>(*computed) : std::nullopt);
  if (value.is_null()) expected(key, what);
  if (!value.is_string()) expected(key, what);
  const std::string text = value.get<std::string>();
  // Results are JSON: a string that cannot be written there is refused here, naming its place.
  if (auto at = invalid_utf8_at(text)) fail(key, "is not valid UTF-8 (byte " + std::to_string(*at) + ")");
  if (!d.choices.empty() && std::find(d.choices.begin(), d.choices.end(), text) == d.choices.end()) {
    const std::string nearest = nearest_of(text, d.choices, 3);
    fail(key, "expected " + what + ", found \"" + text + "\"" +
                  (nearest.empty() ? "" : " (did you mean \"" + nearest + "\"?)"));
  }
  (*resolved_)[key] = text;
  return text;
}

double Spec::number(const std::string& key, std::optional<double> computed) {
  const keys::Key& d = declaration(key);
  const json* v = lookup(key);
  const json value = v ? *v : fallback(d, computed ? std::optional<json>(*computed) : std::nullopt);
  const std::string what = number_range(d);
  if (value.is_null()) expected(key, what == "a number in [-inf, inf]" ? "a number" : what);
  if (!value.is_number()) expected(key, what == "a number in [-inf, inf]" ? "a number" : what);
  const double x = value.get<double>();
  if (!std::isfinite(x) || !in_range(d, x)) expected(key, what);
  (*resolved_)[key] = value;
  return x;
}

std::int64_t Spec::integer(const std::string& key, std::optional<std::int64_t> computed) {
  const keys::Key& d = declaration(key);
  const json* v = lookup(key);
  const std::int64_t min = integer_min(d), max = integer_max(d);
  const std::string range = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  const json value = v ? *v : fallback(d, computed ? std::optional<json>(*computed) : std::nullopt);
  if (value.is_null()) expected(key, range);
  const std::optional<std::int64_t> x = as_integer(value);
  if (!x || *x < min || *x > max) expected(key, range);
  (*resolved_)[key] = *x;
  return *x;
}

bool Spec::boolean(const std::string& key, std::optional<bool> computed) {
  const keys::Key& d = declaration(key);
  const json* v = lookup(key);
  const json value = v ? *v : fallback(d, computed ? std::optional<json>(*computed) : std::nullopt);
  if (!value.is_boolean()) expected(key, "true or false");
  (*resolved_)[key] = value;
  return value.get<bool>();
}

std::vector<std::int64_t> Spec::integers(const std::string& key) {
  const keys::Key& d = declaration(key);
  const json* v = lookup(key);
  const std::int64_t min = integer_min(d), max = integer_max(d);
  std::string what =
      "a non-empty array of integers in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (d.min_items > 1 && d.min_items == d.max_items)
    what = "an array of " + std::to_string(d.min_items) + " integers in [" + std::to_string(min) + ", " +
           std::to_string(max) + "]";
  else if (d.min_items > 1 && d.max_items > d.min_items)
    what = "an array of " + std::to_string(d.min_items) + (d.max_items == d.min_items + 1 ? " or " : " to ") +
           std::to_string(d.max_items) + " integers in [" + std::to_string(min) + ", " + std::to_string(max) +
           "]";
  const json value = v ? *v : d.fallback;
  if (!value.is_array() || value.empty()) expected(key, what);
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::optional<std::int64_t> x = as_integer(value[i]);
    if (!x || *x < min || *x > max)
      fail(key + "[" + std::to_string(i) + "]", "expected " + what + ", found " + describe(value[i]));
    out.push_back(*x);
  }
  if (out.size() < d.min_items || (d.max_items > 0 && out.size() > d.max_items)) {
    // The count is what is wrong: say how many were given, and what the key is for.
    fail(key, "expected " + what + ", found " + std::to_string(out.size()) +
                  (out.size() == 1 ? " integer, " : " integers, ") + value.dump() +
                  (d.help.empty() ? std::string() : " (" + d.help + ")"));
  }
  (*resolved_)[key] = value;
  return out;
}

namespace {
// What a plain number could have meant, as the strings that say it.
std::string plain_number_readings(keys::Type type, double x) {
  switch (type) {
    case keys::Type::bandwidth:
      return "write \"" + units::si_text(x) + "bps\" for bits/s or \"" + units::si_text(x) +
             "Bps\" for bytes/s";
    case keys::Type::duration:
      return "write \"" + units::duration_text(x) + "\" for seconds or \"" + units::duration_text(x / 1000) +
             "\" for milliseconds";
    default:
      return "write \"" + units::speed_text(x) + "\" for flop/s";
  }
}
}  // namespace

double Spec::unit_value(const std::string& key, std::optional<double> (*parse)(const std::string&),
                        const std::string& what, bool zero_allowed) {
  const keys::Key& d = declaration(key);
  const json* v = lookup(key);
  const json given = v ? *v : d.fallback;
  if (given.is_null()) expected(key, what);
  std::optional<double> value;
  if (given.is_number() && v && !d.plain_number && given.get<double>() != 0)
    fail(key, "is the plain number " + given.dump() +
                  ", which does not say its unit: " + plain_number_readings(d.type, given.get<double>()));
  if (given.is_number())
    value = given.get<double>();
  else if (given.is_string())
    value = parse(given.get<std::string>());
  if (!value || !std::isfinite(*value) || *value < 0 || (*value == 0 && !zero_allowed)) expected(key, what);
  if (*value != 0 && !in_range(d, *value))
    fail(key, "is " + describe(given) + " = " + number_text(*value) + " " + d.unit +
                  "; allowed: " + number_range(d).substr(std::string("a number ").size()) + " " + d.unit);
  (*resolved_)[key] = given;
  return *value;
}

double Spec::bandwidth(const std::string& key) {
  return unit_value(key, units::bandwidth,
                    "a positive bandwidth such as \"100Mbps\" (bits/s) or \"10MBps\" (bytes/s)", false);
}

double Spec::duration(const std::string& key) {
  // Zero latency is legal; other durations must be positive.
  return unit_value(key, units::duration, "a duration such as \"500us\", \"1ms\" or \"2s\"", true);
}

double Spec::speed(const std::string& key) {
  return unit_value(key, units::speed, "a positive speed such as \"10Gf\" (flop/s)", false);
}

Spec Spec::object(const std::string& key) {
  const keys::Key& d = declaration(key);
  if (d.type != keys::Type::object) throw std::logic_error(where(key) + ": not declared as an object");
  const json* v = lookup(key);
  static const json empty = json::object();
  if (!v) {
    if (d.required()) expected(key, "an object");
    v = &empty;
  }
  if (!v->is_object()) expected(key, "an object");
  json& child = (*resolved_)[key];
  if (!child.is_object()) child = json::object();
  return Spec(*v, file_, (path_.empty() ? "$" : path_) + "." + key, child, *d.object);
}

json& Spec::resolved_array(const std::string& key, std::size_t size) {
  // Filled before any element's Spec takes a reference into it, so the references stay valid.
  json& out = (*resolved_)[key];
  out = json::array();
  for (std::size_t i = 0; i < size; ++i) out.push_back(json::object());
  return out;
}

std::string Spec::element_path(const std::string& key, std::size_t index) const {
  return (path_.empty() ? "$" : path_) + "." + key + "[" + std::to_string(index) + "]";
}

std::vector<Spec> Spec::objects(const std::string& key) {
  const keys::Key& d = declaration(key);
  if (d.type != keys::Type::objects) throw std::logic_error(where(key) + ": not declared as objects");
  const json* v = lookup(key);
  if (!v) return {};
  if (!v->is_array()) expected(key, "an array of objects");
  json& out = resolved_array(key, v->size());
  std::vector<Spec> specs;
  for (std::size_t i = 0; i < v->size(); ++i)
    specs.emplace_back((*v)[i], file_, element_path(key, i), out[i], *d.object);
  return specs;
}

Spec Spec::variant(const std::string& key) {
  const keys::Key& d = declaration(key);
  if (d.type != keys::Type::variant) throw std::logic_error(where(key) + ": not declared as a variant");
  const json* v = lookup(key);
  std::shared_ptr<const json> owned;
  if (!v) {
    // Absent: the declared default, or an empty object when the family has a default kind.
    if (d.fallback.is_null() && !(d.optional && !d.family->default_kind().empty())) {
      std::string what = "an object with \"" + d.family->discriminator() + "\"";
      expected(key, what);
    }
    owned = std::make_shared<const json>(d.fallback.is_null() ? json::object() : d.fallback);
    v = owned.get();
  }
  json& child = (*resolved_)[key];
  child = json::object();
  Spec spec = of_family(*v, file_, (path_.empty() ? "$" : path_) + "." + key, child, *d.family,
                        d.capability.empty() ? std::string() : d.capability.front());
  if (owned && !spec.owned_) spec.owned_ = std::move(owned);
  return spec;
}

std::vector<Spec> Spec::variants(const std::string& key) {
  const keys::Key& d = declaration(key);
  if (d.type != keys::Type::variants) throw std::logic_error(where(key) + ": not declared as variants");
  const json* v = lookup(key);
  const std::string what = d.min_items > 0 && d.min_items == d.max_items
                               ? "an array of " + std::to_string(d.min_items) + " objects"
                               : "an array of objects";
  if (!v || !v->is_array() || v->size() < d.min_items || (d.max_items > 0 && v->size() > d.max_items))
    expected(key, what);
  json& out = resolved_array(key, v->size());
  std::vector<Spec> specs;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const std::string capability = i < d.capability.size() ? d.capability[i] : std::string();
    specs.push_back(of_family((*v)[i], file_, element_path(key, i), out[i], *d.family, capability));
  }
  return specs;
}

void Spec::finish() const {
  std::vector<std::string> known;
  if (family_) known.push_back(family_->discriminator());
  for (const keys::Key* k : declared_) known.push_back(k->name);
  std::sort(known.begin(), known.end());
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    if (read_.count(it.key())) continue;
    if (std::find(known.begin(), known.end(), it.key()) != known.end()) {
      throw InputError(where(it.key()) + ": \"" + it.key() +
                       "\" does not apply with the other settings here");
    }
    const std::string nearest =
        nearest_of(it.key(), known, std::max<std::size_t>(3, it.key().size() / 3 + 1));
    std::string known_list;
    for (const auto& k : known) known_list += (known_list.empty() ? "" : ", ") + k;
    throw InputError(
        where(it.key()) + ": unknown key \"" + it.key() + "\"" +
        (kind_ ? " for " + family_->discriminator() + " \"" + kind_->name + "\"" : std::string()) +
        (nearest.empty() ? "" : " (did you mean \"" + nearest + "\"?)") +
        (known_list.empty() ? "" : "; known keys here: " + known_list));
  }
}

namespace {
// Duplicate keys are an error (nlohmann would keep the last silently): a stack of the keys seen in each open
// object, and the path to name.
class DuplicateKeys {
 public:
  explicit DuplicateKeys(const std::string& origin) : origin_(origin) {}
  bool operator()(int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        // An element of an array is named by "[]": the callback does not count elements.
        path_.push_back(open_.empty() ? "$" : open_.back().array ? "[]" : "." + pending_);
        open_.push_back({event == json::parse_event_t::array_start, {}});
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        path_.pop_back();
        open_.pop_back();
        break;
      case json::parse_event_t::key:
        pending_ = parsed.get<std::string>();
        if (!open_.back().keys.insert(pending_).second) {
          std::string where;
          for (const auto& part : path_) where += part;
          throw InputError(origin_ + ": " + where + "." + pending_ + ": duplicate key \"" + pending_ +
                           "\" (JSON would silently keep only the last)");
        }
        break;
      case json::parse_event_t::value:
        break;
    }
    return true;
  }

 private:
  struct Open {
    bool array;
    std::set<std::string> keys;
  };
  const std::string& origin_;
  std::vector<Open> open_;
  std::vector<std::string> path_;
  std::string pending_;
};

// Where a parse stopped: the JSON path of the value being read and its byte offset. nlohmann's DOM parser
// reports a number beyond double (1e400) without a position; its SAX parser gives the offset, and the events
// before it give the path.
class Locator : public nlohmann::json_sax<json> {
 public:
  std::string path() const {
    std::string text = "$";
    for (const auto& level : open_)
      text += level.array ? "[" + std::to_string(level.index) + "]" : "." + level.key;
    return text;
  }
  std::size_t offset = 0;  // of the value that failed, from 0

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(false); }
  bool key(string_t& name) override {
    open_.back().key = name;
    return true;
  }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_array() override { return close(); }
  // `position` is just past the token: the offset is where the token starts.
  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception&) override {
    offset = position >= token.size() ? position - token.size() : 0;
    return false;
  }

 private:
  struct Level {
    bool array = false;
    std::size_t index = 0;  // arrays: the element being read
    std::string key;        // objects: the member being read
  };
  bool value() {
    if (!open_.empty() && open_.back().array) ++open_.back().index;
    return true;
  }
  bool open(bool array) {
    open_.push_back({array, 0, {}});
    return true;
  }
  bool close() {
    open_.pop_back();
    return value();
  }
  std::vector<Level> open_;
};

// "line L, column C (byte offset B)" of the 1-based byte `byte` (0: the start).
std::string position_of(const std::string& text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n')
      ++line, column = 1;
    else
      ++column;
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

}  // namespace

json parse_json_text(const std::string& text, const std::string& origin) {
  try {
    DuplicateKeys duplicates(origin);
    return json::parse(text, std::ref(duplicates), /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::out_of_range& e) {
    // A number beyond double (1e400): read again to find where.
    Locator locator;
    json::sax_parse(text, &locator, json::input_format_t::json, /*strict=*/true, /*ignore_comments=*/true);
    std::string what = e.what();
    if (auto pos = what.find("number overflow"); pos != std::string::npos) what = what.substr(pos);
    throw InputError(origin + ": " + position_of(text, locator.offset + 1) + " (byte offset " +
                     std::to_string(locator.offset) + "): " + locator.path() +
                     ": invalid JSON: a number is out of range (" + what + ")");
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    if (auto pos = what.find("syntax error"); pos != std::string::npos) what = what.substr(pos);
    throw InputError(origin + ": " + position_of(text, e.byte) + ": invalid JSON: " + what);
  }
}

json parse_json_file(const std::string& file) {
  // Regular files only, and bounded: a FIFO or /dev/zero given as a scenario is refused, not read forever.
  return parse_json_text(read_regular_file(file, max_json_file_bytes), file);
}

}  // namespace sgdsim
