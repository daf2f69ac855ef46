#pragma once
// The header of a NumPy .npy file (format versions 1.0 to 3.0) holding a little-endian float32 array in C
// order: the magic "\x93NUMPY", the version, the header length, then a Python dict literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), } padded with spaces and a newline.
// The dict is read by a small bounded parser (no regular expressions, no recursion): any header, however
// long, costs linear time and constant stack.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace sgdsim {

struct NpyLayout {
  std::size_t data_offset = 0;  // where the values start
  std::uint64_t count = 0;      // product of the shape
};

// Parses and checks the header of `bytes` (the whole file, read from `path`): the dtype must be float32, the
// shape a tuple of non-negative decimal integers whose product, times 4, is exactly the number of bytes after
// the header. Anything else is an InputError naming `path` and the byte offset of the problem.
NpyLayout parse_npy(std::span<const std::uint8_t> bytes, const std::string& path);

// True when `bytes` start with the .npy magic.
bool has_npy_magic(std::span<const std::uint8_t> bytes);

}  // namespace sgdsim
