#include "algorithms/learning/cifar10.hpp"

#include <algorithm>
#include <filesystem>

#include "algorithms/learning/file_bytes.hpp"
#include "common/error.hpp"

namespace sgdsim::learning {

namespace {

constexpr int side = 32;
constexpr int channels = 3;
constexpr int classes = 10;
constexpr std::size_t pixels = channels * side * side;

// Appends the rows of `part` to `whole` (the training set comes in five files).
void append(Dataset& whole, const Dataset& part) {
  const Eigen::Index old_rows = whole.pixels.rows();
  whole.pixels.conservativeResize(old_rows + part.pixels.rows(), static_cast<Eigen::Index>(pixels));
  whole.pixels.bottomRows(part.pixels.rows()) = part.pixels;
  whole.labels.insert(whole.labels.end(), part.labels.begin(), part.labels.end());
}

Dataset empty_set() {
  Dataset data;
  data.classes = classes;
  data.image = ImageShape{channels, side, side};
  data.pixels.resize(0, static_cast<Eigen::Index>(pixels));
  return data;
}

std::string read_in(const std::string& dir, const std::string& name) {
  const std::filesystem::path path = std::filesystem::path(dir) / name;
  std::error_code ignored;
  if (!std::filesystem::exists(path, ignored)) {
    throw InputError(path.string() +
                     ": no such file; CIFAR-10 is read from the binary version's folder cifar-10-batches-bin "
                     "(data_batch_1.bin ... data_batch_5.bin, test_batch.bin)");
  }
  return path.string();
}

}  // namespace

Dataset parse_cifar10(const std::vector<unsigned char>& bytes, const std::string& origin) {
  if (bytes.empty()) throw InputError(origin + ": empty file, expected CIFAR-10 records");
  if (bytes.size() % cifar10_record_bytes != 0) {
    const std::size_t whole = bytes.size() / cifar10_record_bytes;
    throw InputError(origin + ": truncated or corrupt CIFAR-10 file: " + std::to_string(bytes.size()) +
                     " bytes is not a whole number of " + std::to_string(cifar10_record_bytes) +
                     "-byte records; record " + std::to_string(whole) + " at byte offset " +
                     std::to_string(whole * cifar10_record_bytes) + " is incomplete");
  }
  const std::size_t n = bytes.size() / cifar10_record_bytes;
  Dataset data = empty_set();
  data.pixels.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(pixels));
  data.labels.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char* record = bytes.data() + i * cifar10_record_bytes;
    if (record[0] >= classes) {
      throw InputError(origin + ": label " + std::to_string(record[0]) + " of record " + std::to_string(i) +
                       " (byte offset " + std::to_string(i * cifar10_record_bytes) +
                       ") is not a class from 0 to 9");
    }
    data.labels[i] = record[0];
    std::copy(record + 1, record + 1 + pixels, data.pixels.row(static_cast<Eigen::Index>(i)).data());
  }
  return data;
}

Dataset read_cifar10_file(const std::string& path) {
  // A batch file holds 10000 records of 1 label byte and 3072 pixel bytes; nothing larger is read.
  constexpr std::uint64_t batch_bytes = std::uint64_t{10000} * 3073;
  return parse_cifar10(read_file_bytes(path, batch_bytes), path);
}

Problem load_cifar10(const std::string& dir) {
  Problem problem;
  problem.train = empty_set();
  for (int b = 1; b <= 5; ++b) {
    append(problem.train, read_cifar10_file(read_in(dir, "data_batch_" + std::to_string(b) + ".bin")));
  }
  problem.test = read_cifar10_file(read_in(dir, "test_batch.bin"));
  return problem;
}

}  // namespace sgdsim::learning
