#include "common/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <map>

namespace sgdsim::units {
namespace {

struct Split {
  double number;
  std::string unit;
};

std::optional<Split> split(const std::string& text) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(*begin))) ++begin;
  double value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || !std::isfinite(value)) return std::nullopt;
  std::string unit(ptr, end);
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.front()))) unit.erase(unit.begin());
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.pop_back();
  return Split{value, unit};
}

std::optional<double> prefix(const std::string& p) {
  static const std::map<std::string, double> table = {
      {"", 1.0},      {"k", 1e3},        {"K", 1e3},           {"M", 1e6},
      {"G", 1e9},     {"T", 1e12},       {"P", 1e15},          {"E", 1e18},
      {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}};
  auto it = table.find(p);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

std::optional<double> with_suffix(const std::string& text, const std::string& suffix, double scale) {
  auto s = split(text);
  if (!s) return std::nullopt;
  if (s->unit.size() < suffix.size() ||
      s->unit.compare(s->unit.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  auto p = prefix(s->unit.substr(0, s->unit.size() - suffix.size()));
  if (!p) return std::nullopt;
  return s->number * *p * scale;
}

}  // namespace

std::optional<double> bandwidth(const std::string& text) {
  if (auto bits = with_suffix(text, "bps", 1.0 / 8.0)) return bits;
  return with_suffix(text, "Bps", 1.0);
}

std::optional<double> duration(const std::string& text) {
  auto s = split(text);
  if (!s) return std::nullopt;
  static const std::map<std::string, double> table = {{"w", 604800.0}, {"d", 86400.0}, {"h", 3600.0},
                                                      {"m", 60.0},     {"s", 1.0},     {"ms", 1e-3},
                                                      {"us", 1e-6},    {"ns", 1e-9},   {"ps", 1e-12}};
  auto it = table.find(s->unit);
  if (it == table.end()) return std::nullopt;
  return s->number * it->second;
}

std::optional<double> speed(const std::string& text) {
  auto s = split(text);
  if (!s) return std::nullopt;
  // SimGrid writes flop/s as "f" with an SI prefix ("10Gf"); "flops" is accepted too.
  for (const std::string suffix : {"flops", "f"}) {
    if (auto v = with_suffix(text, suffix, 1.0)) return v;
  }
  return std::nullopt;
}

}  // namespace sgdsim::units
