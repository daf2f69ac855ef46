#pragma once
// Reading a whole data file into memory, transparently gunzipping it: zlib's gzread passes files that are not
// gzip-compressed through unchanged, so one reader serves both `x.gz` and plain `x`.
#include <string>
#include <vector>

namespace sgdsim::learning {

// The (decompressed) bytes of `path`. A missing or unreadable file, or a corrupt or truncated gzip stream, is
// an InputError that names the file.
std::vector<unsigned char> read_file_bytes(const std::string& path);

}  // namespace sgdsim::learning
