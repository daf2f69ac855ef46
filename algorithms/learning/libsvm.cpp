#include "algorithms/learning/libsvm.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "algorithms/learning/file_bytes.hpp"
#include "common/error.hpp"
#include "common/regular_file.hpp"

namespace sgdsim::learning {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// A finite decimal number spanning the whole token; a leading '+' is allowed (LIBSVM writes "+1").
bool parse_real(std::string_view token, double& out) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  if (token.empty()) return false;
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), out);
  return error == std::errc() && end == token.data() + token.size() && std::isfinite(out);
}

class LineError {
 public:
  LineError(const std::string& origin, std::size_t line) : origin_(origin), line_(line) {}
  [[noreturn]] void operator()(const std::string& message, std::string_view token) const {
    std::string shown(token.substr(0, 40));
    if (token.size() > 40) shown += "...";
    throw InputError(origin_ + ": line " + std::to_string(line_) + ": " + message + " (found \"" + shown +
                     "\")");
  }

 private:
  const std::string& origin_;
  std::size_t line_;
};

}  // namespace

SparseSamples parse_libsvm(std::string_view text, const std::string& origin) {
  SparseSamples out;
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (const std::size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    const LineError fail(origin, line_number);

    std::size_t tokens = 0;
    std::int64_t previous = 0;
    while (true) {
      while (!line.empty() && is_space(line.front())) line.remove_prefix(1);
      if (line.empty()) break;
      std::size_t length = 0;
      while (length < line.size() && !is_space(line[length])) ++length;
      const std::string_view token = line.substr(0, length);
      line.remove_prefix(length);
      if (tokens++ == 0) {
        double label;
        if (token.find(':') != std::string_view::npos) fail("the line must start with a label", token);
        if (!parse_real(token, label)) fail("bad label: expected a finite number", token);
        out.labels.push_back(label);
        continue;
      }
      const std::size_t colon = token.find(':');
      if (colon == std::string_view::npos) fail("bad feature: expected index:value", token);
      const std::string_view index_text = token.substr(0, colon);
      if (index_text == "qid") fail("SVMlight query ids (qid:) are not supported", token);
      std::int64_t index = 0;
      const auto [end, error] =
          std::from_chars(index_text.data(), index_text.data() + index_text.size(), index);
      if (error != std::errc() || end != index_text.data() + index_text.size() || index < 1 ||
          index > (std::int64_t{1} << 31)) {
        fail("bad feature index: expected an integer from 1 to 2^31", token);
      }
      if (index <= previous) fail("feature indices must increase along a line", token);
      previous = index;
      double value;
      if (!parse_real(token.substr(colon + 1), value))
        fail("bad feature value: expected a finite number", token);
      if (std::abs(value) > 3.0e38) fail("feature value out of single-precision range", token);
      out.index.push_back(static_cast<std::uint32_t>(index - 1));
      out.value.push_back(static_cast<float>(value));
      out.dimension = std::max(out.dimension, static_cast<std::size_t>(index));
    }
    if (tokens > 0) out.row_start.push_back(out.index.size());
  }
  if (out.samples() == 0)
    throw InputError(origin + ": no samples (the file is empty or holds only comments)");
  return out;
}

SparseSamples read_libsvm_file(const std::string& path) {
  const std::vector<unsigned char> bytes = read_file_bytes(path, max_text_file_bytes);
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (text.find('\0') != std::string_view::npos) {
    throw InputError(path + ": not a LIBSVM text file (it contains NUL bytes)");
  }
  return parse_libsvm(text, path);
}

LabelCoding label_coding(const std::vector<const SparseSamples*>& files) {
  std::set<double> values;
  for (const SparseSamples* file : files) {
    for (double label : file->labels) {
      if (label != std::floor(label) || std::abs(label) > 1e9) return {};
      values.insert(label);
      if (values.size() > max_classes) return {};
    }
  }
  LabelCoding coding;
  const auto within = [&](std::initializer_list<double> allowed) {
    return std::all_of(values.begin(), values.end(), [&](double v) {
      return std::find(allowed.begin(), allowed.end(), v) != allowed.end();
    });
  };
  if (within({-1.0, 1.0}))
    coding.class_values = {-1.0, 1.0};
  else if (within({0.0, 1.0}))
    coding.class_values = {0.0, 1.0};
  else
    coding.class_values.assign(values.begin(), values.end());
  return coding;
}

Dataset densify(const SparseSamples& samples, std::size_t dimension, const LabelCoding& coding,
                const std::string& origin) {
  const std::size_t n = samples.samples();
  if (dimension > 0 && n > max_dense_values / dimension) {
    throw InputError(origin + ": " + std::to_string(n) + " samples x " + std::to_string(dimension) +
                     " features is too large to store densely (limit " + std::to_string(max_dense_values) +
                     " values)");
  }
  Dataset data;
  data.features = Matrix::Zero(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(dimension));
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t k = samples.row_start[r]; k < samples.row_start[r + 1]; ++k) {
      data.features(static_cast<Eigen::Index>(r), samples.index[k]) = samples.value[k];
    }
  }
  data.targets.assign(samples.labels.begin(), samples.labels.end());
  data.class_values = coding.class_values;
  data.classes = static_cast<int>(coding.class_values.size());
  if (!coding.regression()) {
    data.labels.reserve(n);
    for (double label : samples.labels) {
      const auto it = std::lower_bound(coding.class_values.begin(), coding.class_values.end(), label);
      data.labels.push_back(static_cast<std::int32_t>(it - coding.class_values.begin()));
    }
  }
  return data;
}

}  // namespace sgdsim::learning
