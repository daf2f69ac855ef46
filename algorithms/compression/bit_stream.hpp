#pragma once
// Bit-level writer and reader shared by every wire format. Bits are packed most-significant first (bit 7 of
// byte 0 is the first bit of the stream), so a w-bit field reads as a big-endian number and the Elias codes
// appear on the wire in the order their definitions write them. The last byte is padded with zero bits.
#include <algorithm>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace sgdsim::compression {

static_assert(std::endian::native == std::endian::little, "the wire formats assume a little-endian host");

// The writer's state as a plain value: a hot loop takes a copy, writes through it, and hands it back, so the
// state lives in registers (stores of bytes may alias any memory, which forces members to be reloaded).
struct BitCursor {
  std::uint8_t* data;             // valid until the next BitWriter::reserve()
  std::size_t position;           // next byte to store
  std::uint64_t accumulator = 0;  // the low `fill` bits are pending
  unsigned fill = 0;

  // Writes the low `width` bits of `value` (width <= 32, value < 2^width).
  void write(std::uint64_t value, unsigned width) {
    assert(width <= 32 && (width == 32 || value >> width == 0));
    accumulator = (accumulator << width) | value;
    fill += width;
    if (fill >= 32) {
      fill -= 32;
      const std::uint32_t word = __builtin_bswap32(static_cast<std::uint32_t>(accumulator >> fill));
      std::memcpy(data + position, &word, 4);
      position += 4;
    }
  }
};

class BitWriter {
 public:
  // Appends to `out` from its current end.
  explicit BitWriter(std::vector<std::uint8_t>& out) : out_(out), cursor_{out.data(), out.size()} {}

  // Makes room for at least `bits` more bits. write() does not check capacity (it is the hot path), so every
  // run of writes is preceded by a reserve() covering it.
  void reserve(std::size_t bits) {
    const std::size_t needed = cursor_.position + (bits + cursor_.fill) / 8 + 8;
    if (out_.size() < needed) out_.resize(std::max(needed, out_.size() + out_.size() / 2));
    cursor_.data = out_.data();
  }

  void write(std::uint64_t value, unsigned width) {
    assert(cursor_.position + 4 <= out_.size());
    cursor_.write(value, width);
  }
  void write_bit(bool bit) { write(bit ? 1u : 0u, 1); }
  void write_float(float value) { write(std::bit_cast<std::uint32_t>(value), 32); }

  // For hot loops: take the cursor (after reserve()), write through it, give it back.
  BitCursor cursor() const { return cursor_; }
  void commit(const BitCursor& cursor) {
    assert(cursor.position <= out_.size());
    cursor_ = cursor;
  }

  // Pads with zero bits to a whole byte and trims `out` to the bytes written.
  void finish() {
    reserve(0);
    BitCursor& c = cursor_;
    while (c.fill >= 8) {
      c.fill -= 8;
      out_[c.position++] = static_cast<std::uint8_t>(c.accumulator >> c.fill);
    }
    if (c.fill > 0) out_[c.position++] = static_cast<std::uint8_t>(c.accumulator << (8 - c.fill));
    c.fill = 0;
    out_.resize(c.position);
  }

 private:
  std::vector<std::uint8_t>& out_;
  BitCursor cursor_;
};

class BitReader {
 public:
  // Reads message[start, end). `format` names the wire format in error messages.
  BitReader(std::span<const std::uint8_t> message, std::size_t start, const char* format)
      : data_(message), position_(start * 8), format_(format) {
    if (start > message.size()) fail("message shorter than its header");
  }

  // Reads `width` bits (width <= 56) as an unsigned number; past the end is a DecodeError.
  std::uint64_t read(unsigned width) {
    if (width == 0) return 0;
    const std::size_t byte = position_ >> 3;
    if (byte + 8 <= data_.size()) {
      std::uint64_t word;
      std::memcpy(&word, data_.data() + byte, 8);
      word = __builtin_bswap64(word) << (position_ & 7);
      position_ += width;
      return word >> (64 - width);
    }
    if (position_ + width > data_.size() * 8) fail("truncated message");
    std::uint64_t value = 0;
    for (unsigned i = 0; i < width; ++i, ++position_) {
      value = (value << 1) | ((data_[position_ >> 3] >> (7 - (position_ & 7))) & 1u);
    }
    return value;
  }
  bool read_bit() { return read(1) != 0; }
  float read_float() { return std::bit_cast<float>(static_cast<std::uint32_t>(read(32))); }
  // For bulk readers that take fields straight from the bytes: the position in bits, and a move forward
  // (the caller has checked has() first).
  std::span<const std::uint8_t> bytes() const { return data_; }
  std::size_t bit_position() const { return position_; }
  void skip(std::size_t bits) {
    assert(has(bits));
    position_ += bits;
  }
  // True when at least `bits` bits remain.
  bool has(std::size_t bits) const { return position_ + bits <= data_.size() * 8; }

  // Skips the zero padding to the next byte boundary; nonzero padding means corrupt bytes.
  void align() {
    const unsigned rest = (8 - (position_ & 7)) & 7;
    if (rest && read(rest) != 0) fail("nonzero padding bits");
  }
  // The byte offset reached after align().
  std::size_t byte_offset() const { return (position_ + 7) >> 3; }
  // Aligns, then requires that the message ends here.
  void expect_end() {
    align();
    if (byte_offset() != data_.size()) {
      position_ = byte_offset() * 8;
      fail(std::to_string(data_.size() - byte_offset()) + " trailing bytes after the end of the message");
    }
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw DecodeError(std::string(format_) + " decoder: " + what + " at byte offset " +
                      std::to_string(position_ >> 3) + " of " + std::to_string(data_.size()));
  }

 private:
  std::span<const std::uint8_t> data_;
  std::size_t position_;  // in bits from the start of the message
  const char* format_;
};

}  // namespace sgdsim::compression
