#include "common/memory_limit.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "common/error.hpp"

namespace sgdsim {
namespace {

std::optional<double>& override_limit() {
  static std::optional<double> limit;
  return limit;
}

double physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;  // unknown: no check rather than a wrong one
  return static_cast<double>(pages) * static_cast<double>(page);
}

double parse_size(const std::string& text, const std::string& origin, const char* zero) {
  static const std::pair<const char*, double> suffixes[] = {{"KiB", 1024.0},
                                                            {"MiB", 1024.0 * 1024},
                                                            {"GiB", 1024.0 * 1024 * 1024},
                                                            {"TiB", 1099511627776.0},
                                                            {"kB", 1e3},
                                                            {"KB", 1e3},
                                                            {"MB", 1e6},
                                                            {"GB", 1e9},
                                                            {"TB", 1e12},
                                                            {"B", 1.0}};
  std::string number = text;
  double scale = 1;
  for (const auto& [suffix, factor] : suffixes) {
    const std::string s = suffix;
    if (number.size() > s.size() && number.compare(number.size() - s.size(), s.size(), s) == 0) {
      number.resize(number.size() - s.size());
      scale = factor;
      break;
    }
  }
  char* end = nullptr;
  const double value = number.empty() ? NAN : std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(value) || value < 0) {
    throw InputError(origin + ": \"" + text +
                     "\" is not a memory size (a number of bytes, or with a unit: 8GB, 512MiB" + zero + ")");
  }
  return value * scale;
}

}  // namespace

double parse_memory_size(const std::string& text, const std::string& origin) {
  return parse_size(text, origin, "");
}

double parse_memory_limit(const std::string& text, const std::string& origin) {
  return parse_size(text, origin, "; 0: no limit");
}

double memory_limit() {
  if (override_limit()) return *override_limit();
  if (const char* text = std::getenv("SGDSIM_MEMORY_LIMIT"); text && *text)
    return parse_memory_limit(text, "SGDSIM_MEMORY_LIMIT");
  return physical_memory();
}

void set_memory_limit(double bytes) {
  override_limit() = bytes;
}

std::string memory_text(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (bytes >= 1000 && u < 5) bytes /= 1000, ++u;
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return buffer;
}

void require_memory(const MemoryParts& parts, const std::string& where) {
  const double limit = memory_limit();
  if (limit <= 0) return;
  double total = 0;
  for (const auto& part : parts) total += part.second;
  if (total <= limit) return;
  MemoryParts largest = parts;
  std::stable_sort(largest.begin(), largest.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string list;
  for (std::size_t i = 0; i < largest.size() && i < 4; ++i) {
    if (largest[i].second <= 0) break;
    list += (list.empty() ? "" : ", ") + largest[i].first + " " + memory_text(largest[i].second);
  }
  throw InputError(where + ": needs an estimated " + memory_text(total) + " of memory (" + list +
                   "), more than the limit of " + memory_text(limit) +
                   " (the machine's memory unless --memory-limit or SGDSIM_MEMORY_LIMIT says otherwise)");
}

}  // namespace sgdsim
