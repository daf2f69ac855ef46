#include "analysis/sweep_shard.hpp"

#include <charconv>

#include "common/error.hpp"

namespace sgdsim::analysis {
namespace {

bool parse_count(const std::string& text, std::size_t& value) {
  if (text.empty()) return false;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

Shard parse_shard(const std::string& text, const std::string& option) {
  const auto slash = text.find('/');
  Shard shard;
  const bool ok = slash != std::string::npos && parse_count(text.substr(0, slash), shard.index) &&
                  parse_count(text.substr(slash + 1), shard.count);
  if (!ok || shard.count == 0 || shard.index == 0 || shard.index > shard.count) {
    throw InputError(option + ": expected i/N with 1 <= i <= N (shards are numbered from 1), found \"" +
                     text + "\"");
  }
  return shard;
}

std::vector<SweepPoint> select(const std::vector<SweepPoint>& points, const Shard& shard) {
  std::vector<SweepPoint> mine;
  for (const auto& point : points) {
    if (shard.contains(point)) mine.push_back(point);
  }
  return mine;
}

}  // namespace sgdsim::analysis
