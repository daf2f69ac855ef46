#include "algorithms/learning/file_bytes.hpp"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>

#include "common/error.hpp"
#include "common/regular_file.hpp"

namespace sgdsim::learning {

namespace {
// Deflate cannot expand data by more than about 1032:1, so a regular file of n bytes cannot decompress to
// more.
constexpr std::uint64_t max_deflate_ratio = 1032;

thread_local FileBytesCache* active_file_cache = nullptr;

// What identifies a read for FileBytesCache; empty when the file cannot be looked at (the read then reports
// why).
std::string file_cache_key(const std::string& path, std::uint64_t max_bytes, const ExpectedSize& expected) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (error) return {};
  const auto time = std::filesystem::last_write_time(path, error);
  if (error) return {};
  return path + '\n' + std::to_string(size) + '\n' + std::to_string(time.time_since_epoch().count()) + '\n' +
         std::to_string(max_bytes) + '\n' + std::to_string(expected.prefix) + '\n' +
         (expected.total ? "sized" : "whole");
}

std::vector<unsigned char> read_uncached(const std::string& path, std::uint64_t max_bytes,
                                         const ExpectedSize& expected);
}  // namespace

FileBytesCache::FileBytesCache() {
  if (active_file_cache) throw std::logic_error("a FileBytesCache is already active on this thread");
  active_file_cache = this;
}

FileBytesCache::~FileBytesCache() {
  active_file_cache = nullptr;
}

std::vector<unsigned char> read_file_bytes(const std::string& path, std::uint64_t max_bytes,
                                           const ExpectedSize& expected) {
  FileBytesCache* cache = active_file_cache;
  const std::string key = cache ? file_cache_key(path, max_bytes, expected) : std::string();
  if (key.empty()) return read_uncached(path, max_bytes, expected);
  if (const auto it = cache->files_.find(key); it != cache->files_.end()) return it->second;
  std::vector<unsigned char> bytes = read_uncached(path, max_bytes, expected);
  ++cache->reads_;
  cache->files_.emplace(key, bytes);
  return bytes;
}

namespace {

std::vector<unsigned char> read_uncached(const std::string& path, std::uint64_t max_bytes,
                                         const ExpectedSize& expected) {
  std::uint64_t file_size = 0;
  const int fd = open_regular_file(path, std::min(max_bytes, std::uint64_t{1} << 50), file_size);
  errno = 0;
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzdopen(fd, "rb"), gzclose);
  if (!file) {
    close(fd);
    throw InputError(path + ": cannot open file: " + (errno ? std::strerror(errno) : "out of memory"));
  }
  gzbuffer(file.get(), 1 << 17);
  // Stop one byte past the limit: enough to know it was exceeded.
  std::uint64_t stop = std::min(max_bytes, file_size * max_deflate_ratio + 1024) + 1;
  bool asked = expected.prefix == 0 && !expected.total;
  std::vector<unsigned char> bytes;
  bool failed = false;
  while (bytes.size() < stop) {
    if (!asked && bytes.size() >= expected.prefix) {
      asked = true;
      stop = std::min(stop, expected.total(bytes) + 1);
      if (bytes.size() >= stop) break;
    }
    std::uint64_t want = std::min<std::uint64_t>(stop - bytes.size(), 1u << 20);
    if (!asked) want = std::min<std::uint64_t>(want, expected.prefix - bytes.size());
    const std::size_t old_size = bytes.size();
    bytes.resize(old_size + static_cast<std::size_t>(want));
    const int n = gzread(file.get(), bytes.data() + old_size, static_cast<unsigned>(want));
    if (n < 0) {  // described below by gzerror
      failed = true;
      bytes.resize(old_size);
      break;
    }
    bytes.resize(old_size + static_cast<std::size_t>(n));
    if (n == 0) break;
  }
  if (bytes.size() > max_bytes) {
    throw InputError(path + ": more than " + std::to_string(max_bytes) +
                     " (decompressed) bytes, the limit for this kind of file");
  }
  // gzread returns what it decoded before a corruption or an early end of the stream; the error state tells.
  int code = Z_OK;
  const char* message = gzerror(file.get(), &code);
  if (code == Z_BUF_ERROR) {
    throw InputError(path + ": truncated gzip stream (unexpected end of file after " +
                     std::to_string(bytes.size()) + " decompressed bytes)");
  }
  if (code == Z_ERRNO) throw InputError(path + ": read error: " + std::strerror(errno));
  if (failed || (code != Z_OK && code != Z_STREAM_END)) {
    throw InputError(path + ": corrupt gzip data: " + (message && *message ? message : "unknown zlib error"));
  }
  return bytes;
}

}  // namespace
}  // namespace sgdsim::learning
