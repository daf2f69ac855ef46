#pragma once
// One zstd frame around a coded stream (the `coding: "zstd"` of the quantizers): a real entropy coder after
// the fixed-width code, whose symbols are far from uniform.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "algorithms/compression/compressor.hpp"

namespace sgdsim::compression {

// Appends `stream` compressed as one zstd frame at `level` (content size in the header, no checksum).
void append_zstd_frame(std::span<const std::uint8_t> stream, Bytes& out, int level);

// Decompresses the frame message[start, end) into `stream`, which must come out exactly `expected` bytes
// long: the header must declare that size (so nothing larger is ever allocated) and the frame must end the
// message. Anything else is a DecodeError naming `format` and the byte offset.
void read_zstd_frame(std::span<const std::uint8_t> message, std::size_t start, std::size_t expected,
                     Bytes& stream, const std::string& format);

}  // namespace sgdsim::compression
