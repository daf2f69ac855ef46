#pragma once
// The LIBSVM / SVMlight text format: one sample per line, "label index:value index:value ...", indices
// starting at 1 and increasing, absent indices meaning 0, "#" starting a comment. Samples are stored densely
// in Dataset::features (the models use dense Eigen algebra), which limits this reader to data sets whose
// dense form fits in memory (max_dense_values below).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/learning/dataset.hpp"

namespace sgdsim::learning {

// One parsed file, still sparse (compressed rows).
struct SparseSamples {
  std::vector<double> labels;             // as written in the file
  std::vector<std::size_t> row_start{0};  // row r's entries are [row_start[r], row_start[r + 1])
  std::vector<std::uint32_t> index;       // 0-based feature index
  std::vector<float> value;
  std::size_t dimension = 0;  // largest 1-based index seen
  std::size_t samples() const { return labels.size(); }
};

// Beyond this many stored floats (2 GiB) the dense form is refused with an InputError.
inline constexpr std::size_t max_dense_values = std::size_t{1} << 29;

// Parses LIBSVM text; errors name `origin` and the line number.
SparseSamples parse_libsvm(std::string_view text, const std::string& origin);
SparseSamples read_libsvm_file(const std::string& path);

// How file labels become class indices, shared by the training and the test file: labels -1/+1 become 0/1,
// labels 0/1 stay, any other set of integer labels is numbered in increasing order. Real-valued labels (or
// more than max_classes distinct ones) make a regression data set: classes = 0, no class labels.
struct LabelCoding {
  std::vector<double> class_values;  // empty for regression
  bool regression() const { return class_values.empty(); }
};
inline constexpr std::size_t max_classes = 1000;
LabelCoding label_coding(const std::vector<const SparseSamples*>& files);

// The dense Dataset, `dimension` columns wide (>= samples.dimension). Targets always hold the raw labels, so
// a least-squares model can be fitted to any LIBSVM file.
Dataset densify(const SparseSamples& samples, std::size_t dimension, const LabelCoding& coding,
                const std::string& origin);

}  // namespace sgdsim::learning
