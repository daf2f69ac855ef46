#include "algorithms/learning/file_bytes.hpp"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "common/error.hpp"
#include "common/regular_file.hpp"

namespace sgdsim::learning {

namespace {
// Deflate cannot expand data by more than about 1032:1, so a regular file of n bytes cannot decompress to
// more.
constexpr std::uint64_t max_deflate_ratio = 1032;
}  // namespace

std::vector<unsigned char> read_file_bytes(const std::string& path, std::uint64_t max_bytes,
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

}  // namespace sgdsim::learning
