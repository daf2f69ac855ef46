#include "common/spec.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "common/units.hpp"

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

Spec::Spec(const json& value, std::string file, std::string path, json& resolved)
    : value_(&value), file_(std::move(file)), path_(std::move(path)), resolved_(&resolved) {
  if (!value_->is_object()) {
    throw InputError(where() + ": expected an object, found " + describe(*value_));
  }
  if (!resolved_->is_object()) *resolved_ = json::object();
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

const json* Spec::lookup(const std::string& key) {
  read_.insert(key);
  return peek(key);
}

void Spec::echo(const std::string& key, const json& value) {
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

std::string Spec::string(const std::string& key, std::optional<std::string> fallback) {
  const json* v = lookup(key);
  if (!v) {
    if (!fallback) expected(key, "a string");
    echo(key, *fallback);
    return *fallback;
  }
  if (!v->is_string()) expected(key, "a string");
  echo(key, *v);
  return v->get<std::string>();
}

std::string Spec::choice(const std::string& key, const std::vector<std::string>& allowed,
                         std::optional<std::string> fallback) {
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + ("\"" + a + "\"");
  const json* v = lookup(key);
  if (!v && !fallback) expected(key, "one of " + list);
  if (v && !v->is_string()) expected(key, "one of " + list);
  std::string value = v ? v->get<std::string>() : *fallback;
  for (const auto& a : allowed) {
    if (a == value) {
      echo(key, value);
      return value;
    }
  }
  std::string nearest;
  std::size_t best = 3;
  for (const auto& a : allowed) {
    if (auto d = edit_distance(a, value); d < best) best = d, nearest = a;
  }
  fail(key, "expected one of " + list + ", found \"" + value + "\"" +
                (nearest.empty() ? "" : " (did you mean \"" + nearest + "\"?)"));
}

double Spec::number(const std::string& key, std::optional<double> fallback, double min, double max) {
  const json* v = lookup(key);
  double value;
  if (!v) {
    if (!fallback) expected(key, "a number");
    value = *fallback;
  } else {
    if (!v->is_number()) expected(key, "a number");
    value = v->get<double>();
  }
  if (!std::isfinite(value) || value < min || value > max) {
    std::ostringstream range;
    range << "a number in [" << min << ", " << max << "]";
    expected(key, range.str());
  }
  echo(key, v ? *v : json(value));
  return value;
}

double Spec::positive(const std::string& key, std::optional<double> fallback) {
  const json* v = lookup(key);
  if (v && (!v->is_number() || !(v->get<double>() > 0) || !std::isfinite(v->get<double>())))
    expected(key, "a number greater than 0");
  return number(key, fallback);
}

std::int64_t Spec::integer(const std::string& key, std::optional<std::int64_t> fallback, std::int64_t min,
                           std::int64_t max) {
  const json* v = lookup(key);
  std::int64_t value;
  const std::string range = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (!v) {
    if (!fallback) expected(key, range);
    value = *fallback;
  } else if (v->is_number_integer()) {
    if (v->is_number_unsigned() && v->get<std::uint64_t>() > static_cast<std::uint64_t>(max))
      expected(key, range);
    value = v->get<std::int64_t>();
  } else if (v->is_number_float() && std::floor(v->get<double>()) == v->get<double>() &&
             std::abs(v->get<double>()) < 9e15) {
    value = static_cast<std::int64_t>(v->get<double>());
  } else {
    expected(key, range);
  }
  if (value < min || value > max) expected(key, range);
  echo(key, value);
  return value;
}

bool Spec::boolean(const std::string& key, std::optional<bool> fallback) {
  const json* v = lookup(key);
  if (!v) {
    if (!fallback) expected(key, "true or false");
    echo(key, *fallback);
    return *fallback;
  }
  if (!v->is_boolean()) expected(key, "true or false");
  echo(key, *v);
  return v->get<bool>();
}

std::vector<std::int64_t> Spec::integers(const std::string& key, std::int64_t min, std::int64_t max) {
  const json* v = lookup(key);
  const std::string what =
      "a non-empty array of integers in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (!v || !v->is_array() || v->empty()) expected(key, what);
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const json& e = (*v)[i];
    // Like integer(): an integral float such as 4.0 is an integer.
    const bool integral = e.is_number_integer() || (e.is_number_float() && std::isfinite(e.get<double>()) &&
                                                    std::floor(e.get<double>()) == e.get<double>() &&
                                                    std::abs(e.get<double>()) < 9e15);
    if (!integral || (e.is_number_unsigned() && e.get<std::uint64_t>() > static_cast<std::uint64_t>(max)) ||
        e.get<std::int64_t>() < min || e.get<std::int64_t>() > max)
      fail(key + "[" + std::to_string(i) + "]", "expected " + what + ", found " + describe(e));
    out.push_back(e.is_number_integer() ? e.get<std::int64_t>() : static_cast<std::int64_t>(e.get<double>()));
  }
  echo(key, *v);
  return out;
}

std::vector<double> Spec::numbers(const std::string& key, std::optional<std::vector<double>> fallback) {
  const json* v = lookup(key);
  if (!v) {
    if (!fallback) expected(key, "an array of numbers");
    echo(key, *fallback);
    return *fallback;
  }
  if (!v->is_array()) expected(key, "an array of numbers");
  std::vector<double> out;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const json& e = (*v)[i];
    if (!e.is_number() || !std::isfinite(e.get<double>()))
      fail(key + "[" + std::to_string(i) + "]", "expected a number, found " + describe(e));
    out.push_back(e.get<double>());
  }
  echo(key, *v);
  return out;
}

namespace {
template <typename Parse>
double unit_value(Spec& spec, const std::string& key, std::optional<std::string> fallback, Parse parse,
                  const std::string& what) {
  const json* v = spec.peek(key);
  json given = v ? *v : json(fallback.value_or(""));
  if (!v && !fallback) spec.expected(key, what);
  std::optional<double> value;
  if (given.is_number())
    value = given.get<double>();
  else if (given.is_string())
    value = parse(given.get<std::string>());
  if (!value || !std::isfinite(*value) || *value <= 0) spec.expected(key, what);
  spec.echo(key, given);
  return *value;
}
}  // namespace

double Spec::bandwidth(const std::string& key, std::optional<std::string> fallback) {
  return unit_value(*this, key, fallback, units::bandwidth,
                    "a positive bandwidth such as \"100Mbps\" (bits/s) or \"10MBps\" (bytes/s)");
}

double Spec::duration(const std::string& key, std::optional<std::string> fallback) {
  const json* v = peek(key);
  // Zero latency is legal; other durations must be positive.
  if (v && ((v->is_number() && v->get<double>() == 0) ||
            (v->is_string() && units::duration(v->get<std::string>()) == 0.0))) {
    echo(key, *v);
    return 0.0;
  }
  return unit_value(*this, key, fallback, units::duration, "a duration such as \"500us\", \"1ms\" or \"2s\"");
}

double Spec::speed(const std::string& key, std::optional<std::string> fallback) {
  return unit_value(*this, key, fallback, units::speed, "a positive speed such as \"10Gf\" (flop/s)");
}

Spec Spec::object(const std::string& key, bool required) {
  const json* v = lookup(key);
  static const json empty = json::object();
  if (!v) {
    if (required) expected(key, "an object");
    v = &empty;
  }
  if (!v->is_object()) expected(key, "an object");
  json& child = (*resolved_)[key];
  if (!child.is_object()) child = json::object();
  return Spec(*v, file_, (path_.empty() ? "$" : path_) + "." + key, child);
}

std::vector<Spec> Spec::objects(const std::string& key) {
  const json* v = lookup(key);
  if (!v) return {};
  if (!v->is_array()) expected(key, "an array of objects");
  json& out = (*resolved_)[key];
  out = json::array();
  for (std::size_t i = 0; i < v->size(); ++i) out.push_back(json::object());
  std::vector<Spec> specs;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const std::string p = (path_.empty() ? "$" : path_) + "." + key + "[" + std::to_string(i) + "]";
    specs.emplace_back((*v)[i], file_, p, out[i]);
  }
  return specs;
}

void Spec::finish() const {
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    if (read_.count(it.key())) continue;
    std::string nearest;
    std::size_t best = std::max<std::size_t>(3, it.key().size() / 3 + 1);
    for (const auto& known : read_) {
      if (auto d = edit_distance(known, it.key()); d < best) best = d, nearest = known;
    }
    std::string known_list;
    for (const auto& known : read_) known_list += (known_list.empty() ? "" : ", ") + known;
    throw InputError(where(it.key()) + ": unknown key \"" + it.key() + "\"" +
                     (nearest.empty() ? "" : " (did you mean \"" + nearest + "\"?)") +
                     (known_list.empty() ? "" : "; known keys here: " + known_list));
  }
}

json parse_json_text(const std::string& text, const std::string& origin) {
  try {
    return json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    // Translate the byte offset into line and column for the user.
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n')
        ++line, column = 1;
      else
        ++column;
    }
    std::string what = e.what();
    if (auto pos = what.find("syntax error"); pos != std::string::npos) what = what.substr(pos);
    throw InputError(origin + ": line " + std::to_string(line) + ", column " + std::to_string(column) +
                     ": invalid JSON: " + what);
  }
}

json parse_json_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file + ": cannot open file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_json_text(text.str(), file);
}

}  // namespace sgdsim
