#pragma once
// The IDX format of MNIST and Fashion-MNIST: a 4-byte magic number (two zero bytes, a type code, the rank),
// one big-endian 32-bit size per dimension, then the values in row-major order. Only unsigned bytes (type
// 0x08) occur in these data sets, so only they are supported.
#include <cstdint>
#include <string>
#include <vector>

namespace sgdsim::learning {

struct IdxArray {
  std::vector<std::uint32_t> dims;
  std::vector<unsigned char> values;  // product(dims) bytes
};

// More values than any IDX data set holds (Fashion-MNIST has 47 million); also keeps products from
// overflowing.
inline constexpr std::uint64_t max_idx_values = std::uint64_t{1} << 40;

// Parses IDX bytes read from `origin` (used in messages). Checks the magic number, that the rank is
// `expected_rank`, and that the payload is exactly product(dims) bytes; otherwise an InputError naming
// `origin`.
IdxArray parse_idx(std::vector<unsigned char> bytes, int expected_rank, const std::string& origin);

// Reads a (possibly gzip-compressed) IDX file, decompressing no more than the header declares.
IdxArray read_idx_file(const std::string& path, int expected_rank);

}  // namespace sgdsim::learning
