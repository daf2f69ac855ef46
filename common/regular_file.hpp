#pragma once
// Reading files that come from outside (scenarios, sweep files, data sets, edge lists, vectors to compress).
// Only regular files are read: a FIFO would block forever, /dev/zero never ends, a directory has no bytes.
// Every read is bounded, so a file that is larger than its format allows is refused before memory runs out.
// Errors are InputErrors (exit 2) naming the file.
#include <cstdint>
#include <string>
#include <vector>

namespace sgdsim {

// Limits of the readers (README.md, "Outputs").
inline constexpr std::uint64_t max_json_file_bytes = std::uint64_t{64}
                                                     << 20;  // scenarios, sweeps, compressors
inline constexpr std::uint64_t max_text_file_bytes = std::uint64_t{4} << 30;    // edge lists, LIBSVM
inline constexpr std::uint64_t max_vector_file_bytes = std::uint64_t{4} << 30;  // `sgdsim compress` inputs

// Opens `path` for reading (close-on-exec) after checking that it is a regular file of at most `max_bytes`
// bytes; returns the descriptor, which the caller closes, and stores the file's size in `size`. Opening does
// not block on a FIFO (it is opened non-blocking, then refused).
int open_regular_file(const std::string& path, std::uint64_t max_bytes, std::uint64_t& size);

// Throws the InputError open_regular_file would (not a regular file, too large, cannot open), else nothing.
// For callers that hand the path on to a reader of their own.
void require_regular_file(const std::string& path, std::uint64_t max_bytes);

// The whole content of the regular file `path`, at most `max_bytes` bytes.
std::string read_regular_file(const std::string& path, std::uint64_t max_bytes = max_json_file_bytes);
std::vector<unsigned char> read_regular_file_bytes(const std::string& path, std::uint64_t max_bytes);

}  // namespace sgdsim
