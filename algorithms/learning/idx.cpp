#include "algorithms/learning/idx.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "algorithms/learning/file_bytes.hpp"
#include "common/error.hpp"

namespace sgdsim::learning {

namespace {

constexpr unsigned char unsigned_byte_type = 0x08;

std::string hex32(std::uint32_t value) {
  return fmt::format("{:#010x}", value);
}

std::uint32_t big_endian32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

}  // namespace

IdxArray parse_idx(std::vector<unsigned char> bytes, int expected_rank, const std::string& origin) {
  const std::uint32_t expected_magic =
      (std::uint32_t{unsigned_byte_type} << 8) | static_cast<std::uint32_t>(expected_rank);
  if (bytes.size() < 4) {
    throw InputError(origin + ": not an IDX file: " + std::to_string(bytes.size()) +
                     " bytes, too short for the 4-byte magic number");
  }
  const std::uint32_t magic = big_endian32(bytes.data());
  if (magic != expected_magic) {
    throw InputError(origin + ": bad IDX magic number " + hex32(magic) + " (expected " +
                     hex32(expected_magic) + ": unsigned bytes, " + std::to_string(expected_rank) +
                     " dimensions)");
  }
  const std::size_t header = 4 + 4 * static_cast<std::size_t>(expected_rank);
  if (bytes.size() < header) {
    throw InputError(origin + ": truncated IDX header: " + std::to_string(bytes.size()) +
                     " bytes, the header of a " + std::to_string(expected_rank) +
                     "-dimensional array needs " + std::to_string(header));
  }
  IdxArray array;
  std::uint64_t count = 1;
  for (int i = 0; i < expected_rank; ++i) {
    const std::uint32_t dim = big_endian32(bytes.data() + 4 + 4 * i);
    if (dim == 0)
      throw InputError(origin + ": bad IDX header: dimension " + std::to_string(i) + " has size 0");
    array.dims.push_back(dim);
    count *= dim;
    // More than any file could hold; also keeps the product from overflowing.
    if (count > max_idx_values) {
      throw InputError(origin + ": bad IDX header: the dimensions describe more than 2^40 values");
    }
  }
  const std::uint64_t payload = bytes.size() - header;
  if (payload < count) {
    throw InputError(origin + ": truncated IDX data: the header promises " + std::to_string(count) +
                     " bytes of values, the file holds " + std::to_string(payload));
  }
  if (payload > count) {
    throw InputError(origin + ": corrupt IDX file: unexpected bytes at byte offset " +
                     std::to_string(header + count) + ", after the " + std::to_string(count) +
                     " values the header declares");
  }
  bytes.erase(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(header));
  array.values = std::move(bytes);
  return array;
}

IdxArray read_idx_file(const std::string& path, int expected_rank) {
  // The header says how many bytes follow: read no more than that (plus one, to detect extra bytes), so a
  // gzip bomb or a huge file is not decompressed into memory before parse_idx refuses it.
  const std::size_t header = 4 + 4 * static_cast<std::size_t>(expected_rank);
  const ExpectedSize expected{header, [&](std::span<const unsigned char> prefix) -> std::uint64_t {
                                if (prefix.size() < header)
                                  return header;  // parse_idx reports the truncation
                                std::uint64_t count = 1;
                                for (int i = 0; i < expected_rank; ++i) {
                                  count *= big_endian32(prefix.data() + 4 + 4 * i);
                                  if (count > max_idx_values) return header;  // parse_idx reports it
                                }
                                return header + count;
                              }};
  return parse_idx(read_file_bytes(path, header + max_idx_values + 1, expected), expected_rank, path);
}

}  // namespace sgdsim::learning
