#include "common/units.hpp"

#include <simgrid/Exception.hpp>
#include <xbt/parse_units.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
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

std::string si_text(double value, bool small) {
  static const char* const large_prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  static const char* const small_prefixes[] = {"", "m", "u", "n", "p"};
  if (value == 0 || !std::isfinite(value)) return value == 0 ? "0" : std::to_string(value);
  const double magnitude = std::fabs(value);
  int step = static_cast<int>(std::floor(std::log10(magnitude) / 3));
  step = small ? std::clamp(step, -4, 6) : std::clamp(step, 0, 6);
  double mantissa = value / std::pow(1000.0, step);
  // 999.96 rounds to 1000 at 4 digits: take the next prefix instead.
  if (std::fabs(mantissa) >= 999.95 && step < 6) {
    ++step;
    mantissa /= 1000;
  }
  char digits[32];
  std::snprintf(digits, sizeof digits, "%.4g", mantissa);
  return std::string(digits) + (step >= 0 ? large_prefixes[step] : small_prefixes[-step]);
}

std::string bandwidth_text(double bytes_per_second) {
  return si_text(bytes_per_second * 8) + "bps";
}

std::string bytes_rate_text(double bytes_per_second) {
  return si_text(bytes_per_second) + "Bps";
}

std::string duration_text(double seconds) {
  return si_text(seconds, true) + "s";
}

std::string speed_text(double flops) {
  return si_text(flops) + "f";
}

}  // namespace sgdsim::units
