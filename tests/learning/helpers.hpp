#pragma once
// Test helpers for the learning layer: a private temporary folder, small files (plain or gzip), Specs from
// JSON text, and random small data sets.
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/learning/dataset.hpp"
#include "common/rng.hpp"
#include "common/spec.hpp"

namespace sgdsim::learning::testing {

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("sgdsim-learning-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline void write_plain(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

inline std::string gzip_bytes(const std::string& bytes) {
  z_stream stream{};
  // windowBits 15 + 16: gzip wrapper.
  if (deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("zlib");
  std::string out(deflateBound(&stream, bytes.size()) + 64, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&stream, Z_FINISH);
  deflateEnd(&stream);
  if (status != Z_STREAM_END) throw std::runtime_error("zlib deflate");
  out.resize(stream.total_out);
  return out;
}

inline void write_gzip(const std::string& path, const std::string& bytes) {
  write_plain(path, gzip_bytes(bytes));
}

// Big-endian IDX bytes: magic 0x0000 08 rank, the dimensions, then the values.
inline std::string idx_bytes(const std::vector<std::uint32_t>& dims,
                             const std::vector<unsigned char>& values) {
  std::string out{'\0', '\0', '\x08', static_cast<char>(dims.size())};
  for (std::uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((d >> shift) & 0xff));
  }
  out.append(values.begin(), values.end());
  return out;
}

// A Spec over a JSON document kept alive by the holder: an object of a family, or a fixed object.
struct SpecHolder {
  json doc;
  json resolved;
  Spec spec;
  SpecHolder(const std::string& text, const std::string& path, const keys::Family& family)
      : doc(json::parse(text)),
        resolved(json::object()),
        spec(Spec::of_family(doc, "s.json", path, resolved, family)) {}
  SpecHolder(const std::string& text, const std::string& path, const keys::Object& object)
      : doc(json::parse(text)), resolved(json::object()), spec(doc, "s.json", path, resolved, object) {}
};

// Random features in [-1, 1], labels in [0, classes), targets N(0, 1).
inline Dataset random_dataset(std::size_t samples, std::size_t features, int classes, std::uint64_t seed) {
  Rng rng(seed);
  Dataset data;
  data.features.resize(static_cast<Eigen::Index>(samples), static_cast<Eigen::Index>(features));
  for (Eigen::Index i = 0; i < data.features.rows(); ++i) {
    for (Eigen::Index j = 0; j < data.features.cols(); ++j) {
      data.features(i, j) = static_cast<float>(2 * rng.uniform() - 1);
    }
  }
  data.classes = classes;
  for (std::size_t i = 0; i < samples; ++i) {
    data.labels.push_back(static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(classes))));
    data.targets.push_back(static_cast<float>(rng.normal()));
  }
  return data;
}

}  // namespace sgdsim::learning::testing
