#pragma once
// Reading a whole data file into memory, transparently gunzipping it: zlib's gzread passes files that are not
// gzip-compressed through unchanged, so one reader serves both `x.gz` and plain `x`. Only regular files are
// read (see common/regular_file.hpp), and the decompressed size is bounded, so neither a FIFO nor a gzip bomb
// can hang the reader or exhaust memory.
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace sgdsim::learning {

// Called once the first `prefix` decompressed bytes are in (or the stream ended before): returns how many
// decompressed bytes the format implies in total. Reading stops one byte beyond that, so the parser can tell
// "exactly as promised" from "more than promised" without reading the rest.
struct ExpectedSize {
  std::size_t prefix = 0;
  std::function<std::uint64_t(std::span<const unsigned char>)> total;
};

// The (decompressed) bytes of `path`. A missing, unreadable or non-regular file, more than `max_bytes`
// decompressed bytes, or a corrupt or truncated gzip stream, is an InputError that names the file.
std::vector<unsigned char> read_file_bytes(const std::string& path, std::uint64_t max_bytes,
                                           const ExpectedSize& expected = {});

// While one is alive (at most one per thread), read_file_bytes keeps what it read and hands out copies when
// the same file (path, size and modification time unchanged) is read again with the same limits: checking the
// points of a sweep then decompresses its data set once, not once per point. Only what was read whole and
// without error is kept; the cache holds its files until it is destroyed.
class FileBytesCache {
 public:
  FileBytesCache();
  ~FileBytesCache();
  FileBytesCache(const FileBytesCache&) = delete;
  FileBytesCache& operator=(const FileBytesCache&) = delete;
  // Files read from disk while this cache was active (not answered from it).
  std::size_t reads() const { return reads_; }

 private:
  friend std::vector<unsigned char> read_file_bytes(const std::string&, std::uint64_t, const ExpectedSize&);
  std::map<std::string, std::vector<unsigned char>> files_;  // by path, size, time and limits
  std::size_t reads_ = 0;
};

}  // namespace sgdsim::learning
