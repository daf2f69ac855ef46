#include "common/units.hpp"

#include <simgrid/Exception.hpp>
#include <xbt/parse_units.hpp>

#include <cmath>
#include <cstdlib>

namespace sgdsim::units {
namespace {

using Parser = double (*)(const std::string&, int, const std::string&, const std::string&);

// True when strtod, which SimGrid's parser starts with, consumes the whole string: SimGrid would then read it
// in its default unit and print a deprecation warning.
bool has_no_unit(const std::string& text) {
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0';
}

std::optional<double> parse(Parser parser, const std::string& text) {
  // SimGrid reads a C string: whatever follows a NUL would be silently ignored.
  if (text.find('\0') != std::string::npos || has_no_unit(text)) return std::nullopt;
  double value = 0;
  try {
    // SimGrid reports every rejected string (bad number, out of range, unknown unit) as a ParseError.
    value = parser("", 0, text, "");
  } catch (const simgrid::ParseError&) {
    return std::nullopt;
  }
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace

std::optional<double> bandwidth(const std::string& text) {
  return parse(xbt_parse_get_bandwidth, text);
}

std::optional<double> duration(const std::string& text) {
  return parse(xbt_parse_get_time, text);
}

std::optional<double> speed(const std::string& text) {
  return parse(xbt_parse_get_speed, text);
}

}  // namespace sgdsim::units
