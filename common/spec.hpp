#pragma once
// Reading one JSON object of a scenario: typed getters that validate, fill defaults, echo every value into
// the resolved scenario, and reject unknown keys. Every layer reads its own part of the scenario through a
// Spec, so adding a compressor or a topology touches only its own file; errors name the file and the JSON
// path.
#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sgdsim {

using nlohmann::json;

class Spec {
 public:
  // `value` and `resolved` must outlive the Spec. `resolved` receives the value with defaults filled in.
  Spec(const json& value, std::string file, std::string path, json& resolved);

  const json& raw() const { return *value_; }
  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  // "file: $.a.b" for this object, or for one of its keys.
  std::string where(const std::string& key = {}) const;
  bool has(const std::string& key) const;
  bool is_object() const { return value_->is_object(); }

  // Typed getters. Without a default the key is required. Ranges are inclusive unless noted.
  std::string string(const std::string& key, std::optional<std::string> fallback = std::nullopt);
  std::string choice(const std::string& key, const std::vector<std::string>& allowed,
                     std::optional<std::string> fallback = std::nullopt);
  double number(const std::string& key, std::optional<double> fallback = std::nullopt,
                double min = -std::numeric_limits<double>::infinity(),
                double max = std::numeric_limits<double>::infinity());
  // A number that must be strictly greater than zero (and finite).
  double positive(const std::string& key, std::optional<double> fallback = std::nullopt);
  std::int64_t integer(const std::string& key, std::optional<std::int64_t> fallback = std::nullopt,
                       std::int64_t min = std::numeric_limits<std::int64_t>::min(),
                       std::int64_t max = std::numeric_limits<std::int64_t>::max());
  bool boolean(const std::string& key, std::optional<bool> fallback = std::nullopt);
  std::vector<std::int64_t> integers(const std::string& key, std::int64_t min, std::int64_t max);
  std::vector<double> numbers(const std::string& key,
                              std::optional<std::vector<double>> fallback = std::nullopt);
  // Unit strings that SimGrid understands; plain numbers are taken in base units (bytes/s, s, flop/s).
  // Each returns the value in base units and echoes the user's string.
  double bandwidth(const std::string& key, std::optional<std::string> fallback = std::nullopt);
  double duration(const std::string& key, std::optional<std::string> fallback = std::nullopt);
  double speed(const std::string& key, std::optional<std::string> fallback = std::nullopt);

  // A nested object; a missing key gives an empty object (all defaults), unless `required`.
  Spec object(const std::string& key, bool required = false);
  // An array of objects.
  std::vector<Spec> objects(const std::string& key);
  // The raw value of a key whose shape the caller checks (echoed as given); nullptr when absent.
  const json* peek(const std::string& key) const;
  // Marks a key as read and echoes `value` for it into the resolved scenario.
  void echo(const std::string& key, const json& value);

  // Rejects keys that no getter read, suggesting the nearest known key. Call after reading everything.
  void finish() const;

  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  [[noreturn]] void expected(const std::string& key, const std::string& what) const;

 private:
  const json* value_;
  std::string file_;
  std::string path_;
  json* resolved_;
  std::set<std::string> read_;
  const json* lookup(const std::string& key);
};

// "object", "array", "string", "number 3.5", ... for error messages.
std::string describe(const json& value);
// Edit distance, for "did you mean" suggestions.
std::size_t edit_distance(const std::string& a, const std::string& b);

// Parses JSON with comments; errors name the file, line and column.
json parse_json_file(const std::string& file);
json parse_json_text(const std::string& text, const std::string& origin);

}  // namespace sgdsim
