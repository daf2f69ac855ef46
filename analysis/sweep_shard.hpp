#pragma once
// Splitting a sweep over machines: `--shard i/N` (1-based, i in 1..N, so Slurm's --array=1-N and GNU
// parallel's
// {#} plug in directly) takes the points whose enumeration index k satisfies k mod N = i - 1. The shards are
// disjoint, together cover the sweep, and interleave so every shard gets a mix of settings and seeds.
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/sweep_point.hpp"

namespace sgdsim::analysis {

struct Shard {
  std::size_t index = 1;  // 1-based
  std::size_t count = 1;

  bool contains(const SweepPoint& point) const { return point.index % count == index - 1; }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// Parses "i/N"; throws InputError naming `option` for anything else.
Shard parse_shard(const std::string& text, const std::string& option = "--shard");

std::vector<SweepPoint> select(const std::vector<SweepPoint>& points, const Shard& shard);

}  // namespace sgdsim::analysis
