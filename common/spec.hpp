#pragma once
// Reading one JSON object of a scenario against its key declarations (common/keys.hpp): typed getters take
// type, default and range from the declaration, echo every value into the resolved scenario, and finish()
// rejects keys that are not declared here. Code decides only which keys apply (e.g. `levels` or `bits`,
// depending on `table`); errors name the file and the JSON path.
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/keys.hpp"

namespace sgdsim {

using nlohmann::json;

class Spec {
 public:
  // A fixed object. `value` and `resolved` must outlive the Spec; `resolved` receives the value with defaults
  // filled in. `path` is "" for the document root, else a JSON path such as "$.network".
  Spec(const json& value, std::string file, std::string path, json& resolved, const keys::Object& declared);
  // An object of `family` (its discriminator is read at once; a shorthand value is expanded).
  static Spec of_family(const json& value, std::string file, std::string path, json& resolved,
                        const keys::Family& family, const std::string& capability = {});

  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  // "file: $.a.b" for this object, or for one of its keys.
  std::string where(const std::string& key = {}) const;
  bool has(const std::string& key) const;
  // The kind of a Family object (nullptr for a fixed object).
  const keys::Kind* kind() const { return kind_; }
  const std::string& kind_name() const;

  // Typed getters of declared keys. `computed` is the default of a key declared with computed_default().
  std::string string(const std::string& key, const std::optional<std::string>& computed = std::nullopt);
  double number(const std::string& key, std::optional<double> computed = std::nullopt);
  std::int64_t integer(const std::string& key, std::optional<std::int64_t> computed = std::nullopt);
  bool boolean(const std::string& key, std::optional<bool> computed = std::nullopt);
  std::vector<std::int64_t> integers(const std::string& key);
  // Unit strings that SimGrid understands; plain numbers are taken in base units (bytes/s, s, flop/s).
  // Each returns the value in base units and echoes the user's string.
  double bandwidth(const std::string& key);
  double duration(const std::string& key);
  double speed(const std::string& key);

  // A nested fixed object; absent gives an empty object (all defaults) unless the key is required.
  Spec object(const std::string& key);
  std::vector<Spec> objects(const std::string& key);
  // A nested Family object (or its declared default when absent).
  Spec variant(const std::string& key);
  std::vector<Spec> variants(const std::string& key);
  // This object as resolved so far: what was read, with defaults filled in (complete after finish()).
  const json& resolved() const { return *resolved_; }
  // The raw value of a key whose shape the caller checks (Type::any); nullptr when absent.
  const json* peek(const std::string& key) const;
  // Marks a declared key as read and echoes `value` for it into the resolved scenario.
  void echo(const std::string& key, const json& value);

  // Rejects keys that are not declared here (suggesting the nearest) and declared keys that the code did not
  // read (they do not apply with the other settings). Call after reading everything.
  void finish() const;

  // Runs `body`; an InputError about another file (a dataset, an edge list) is re-thrown naming this object
  // too, so the user sees which part of the scenario led there.
  template <typename F>
  auto in_context(F&& body) const {
    try {
      return body();
    } catch (const InputError& e) {
      const std::string what = e.what();
      if (what.find(file_ + ": $") != std::string::npos) throw;
      throw InputError(where() + ": " + what);
    }
  }

  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  [[noreturn]] void expected(const std::string& key, const std::string& what) const;

 private:
  Spec(const json& value, std::string file, std::string path, json& resolved,
       std::vector<const keys::Key*> declared);
  const keys::Key& declaration(const std::string& key) const;
  const json* lookup(const std::string& key);
  json fallback(const keys::Key& declared, const std::optional<json>& computed) const;
  void enter_family(const keys::Family& family, const std::string& capability);
  json& resolved_array(const std::string& key, std::size_t size);
  std::string element_path(const std::string& key, std::size_t index) const;
  double unit_value(const std::string& key, std::optional<double> (*parse)(const std::string&),
                    const std::string& what, bool zero_allowed);

  std::shared_ptr<const json> owned_;  // an expanded shorthand or a default value
  const json* value_;
  std::string file_;
  std::string path_;
  json* resolved_;
  std::vector<const keys::Key*> declared_;
  const keys::Family* family_ = nullptr;
  const keys::Kind* kind_ = nullptr;
  std::set<std::string> read_;
};

// "object", "array", "string", "number 3.5", ... for error messages.
std::string describe(const json& value);
// Edit distance, for "did you mean" suggestions.
std::size_t edit_distance(const std::string& a, const std::string& b);
// ", "-joined quoted names: "a", "b", "c".
std::string quoted_list(const std::vector<std::string>& names);

// Parses JSON with comments; errors name the file, line and column.
json parse_json_file(const std::string& file);
json parse_json_text(const std::string& text, const std::string& origin);

}  // namespace sgdsim
