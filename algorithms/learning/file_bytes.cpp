#include "algorithms/learning/file_bytes.hpp"

#include <sys/stat.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "common/error.hpp"

namespace sgdsim::learning {

std::vector<unsigned char> read_file_bytes(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) {
    throw InputError(path + ": cannot open file: " + std::strerror(errno));
  }
  if (S_ISDIR(info.st_mode)) throw InputError(path + ": is a directory, expected a data file");
  errno = 0;
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) {
    throw InputError(path + ": cannot open file: " + (errno ? std::strerror(errno) : "out of memory"));
  }
  gzbuffer(file.get(), 1 << 17);
  std::vector<unsigned char> bytes;
  constexpr unsigned chunk = 1u << 20;
  bool failed = false;
  for (;;) {
    const std::size_t old_size = bytes.size();
    bytes.resize(old_size + chunk);
    const int n = gzread(file.get(), bytes.data() + old_size, chunk);
    if (n < 0) {  // described below by gzerror
      failed = true;
      bytes.resize(old_size);
      break;
    }
    bytes.resize(old_size + static_cast<std::size_t>(n));
    if (n == 0) break;
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
