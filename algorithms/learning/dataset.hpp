#pragma once
// A labelled dataset held once in memory; node shards refer to it by sample index (no per-node copies).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>

namespace sgdsim::learning {

// Row-major so that one sample is one contiguous row.
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Dataset {
  Matrix features;               // samples x features
  std::vector<std::int32_t> labels;  // class index in [0, classes); for regression unused
  std::vector<float> targets;    // real-valued targets for regression problems (synthetic linear), else empty
  int classes = 2;
  std::size_t samples() const { return static_cast<std::size_t>(features.rows()); }
  std::size_t dimension() const { return static_cast<std::size_t>(features.cols()); }
};

struct Problem {
  Dataset train;
  Dataset test;  // may be empty (0 rows)
  std::string description;
  // For synthetic problems: the optimal regularised training loss, so the trace can report suboptimality.
  std::optional<double> optimum;
};

}  // namespace sgdsim::learning
