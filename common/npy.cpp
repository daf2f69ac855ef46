#include "common/npy.hpp"

#include <cctype>
#include <cstring>
#include <limits>

#include "common/error.hpp"

namespace sgdsim {
namespace {

constexpr char magic[] = "\x93NUMPY";
constexpr std::size_t magic_size = 6;

[[noreturn]] void npy_error(const std::string& path, std::size_t offset, const std::string& what) {
  throw InputError(path + ": not a float32 .npy file: " + what + " at byte offset " + std::to_string(offset));
}

class HeaderParser {
 public:
  HeaderParser(std::span<const std::uint8_t> bytes, std::size_t begin, std::size_t end,
               const std::string& path)
      : bytes_(bytes), pos_(begin), end_(end), path_(path) {}

  [[noreturn]] void fail(const std::string& what) const { fail_at(pos_, what); }
  [[noreturn]] void fail_at(std::size_t offset, const std::string& what) const {
    npy_error(path_, offset, what);
  }

  void skip_spaces() {
    while (pos_ < end_ &&
           (bytes_[pos_] == ' ' || bytes_[pos_] == '\t' || bytes_[pos_] == '\n' || bytes_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool at_end() const { return pos_ >= end_; }
  char peek() const { return at_end() ? '\0' : static_cast<char>(bytes_[pos_]); }
  bool accept(char c) {
    skip_spaces();
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c, const char* what) {
    if (!accept(c)) fail(std::string("expected ") + what + found());
  }
  std::string found() const {
    if (at_end()) return " but the header ended";
    const unsigned char c = bytes_[pos_];
    if (c >= 0x20 && c < 0x7F) return std::string(", found '") + static_cast<char>(c) + "'";
    return ", found byte " + std::to_string(c);
  }
  std::size_t position() const { return pos_; }

  // A Python string literal in single or double quotes, without escapes (numpy never writes any).
  std::string string_literal() {
    skip_spaces();
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted string" + found());
    const std::size_t start = ++pos_;
    while (!at_end() && peek() != quote) {
      if (peek() == '\\' || peek() == '\n') fail("unsupported character in a string");
      ++pos_;
      // Keys and dtypes are short; a long one is garbage, whatever it says.
      if (pos_ - start > 64) fail_at(start, "string longer than 64 characters");
    }
    if (at_end()) fail_at(start - 1, "unterminated string");
    std::string text(reinterpret_cast<const char*>(bytes_.data() + start), pos_ - start);
    ++pos_;
    return text;
  }

  bool boolean_literal() {
    skip_spaces();
    if (matches("True")) return true;
    if (matches("False")) return false;
    fail("expected True or False" + found());
  }

  // A non-negative decimal integer of at most `limit`; no sign, no underscores, no suffix.
  std::uint64_t integer(std::uint64_t limit) {
    skip_spaces();
    const std::size_t start = pos_;
    if (peek() < '0' || peek() > '9') fail("expected a non-negative integer dimension" + found());
    std::uint64_t value = 0;
    while (peek() >= '0' && peek() <= '9') {
      const std::uint64_t digit = static_cast<std::uint64_t>(peek() - '0');
      if (value > (limit - digit) / 10) fail_at(start, "dimension does not fit in 64 bits");
      value = value * 10 + digit;
      ++pos_;
    }
    return value;
  }

 private:
  bool matches(const char* word) {
    const std::size_t n = std::strlen(word);
    if (end_ - pos_ < n || std::memcmp(bytes_.data() + pos_, word, n) != 0) return false;
    // "Truex" is not True.
    if (pos_ + n < end_ && std::isalnum(bytes_[pos_ + n])) return false;
    pos_ += n;
    return true;
  }

  std::span<const std::uint8_t> bytes_;
  std::size_t pos_, end_;
  const std::string& path_;
};

}  // namespace

bool has_npy_magic(std::span<const std::uint8_t> bytes) {
  return bytes.size() >= magic_size && std::memcmp(bytes.data(), magic, magic_size) == 0;
}

NpyLayout parse_npy(std::span<const std::uint8_t> bytes, const std::string& path) {
  if (!has_npy_magic(bytes)) npy_error(path, 0, "missing the \\x93NUMPY magic");
  if (bytes.size() < 10) npy_error(path, bytes.size(), "truncated header");
  const int major = bytes[6];
  std::size_t header_length, header_start;
  if (major == 1) {
    header_length = bytes[8] | (std::size_t{bytes[9]} << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) npy_error(path, bytes.size(), "truncated header");
    header_length = bytes[8] | (std::size_t{bytes[9]} << 8) | (std::size_t{bytes[10]} << 16) |
                    (std::size_t{bytes[11]} << 24);
    header_start = 12;
  } else {
    npy_error(path, 6, "unsupported format version " + std::to_string(major));
  }
  if (header_length > bytes.size() - header_start) {
    npy_error(path, bytes.size(),
              "truncated header (it declares " + std::to_string(header_length) + " bytes)");
  }
  const std::size_t data_start = header_start + header_length;
  // No file this reader accepts holds more values than this, which also keeps the product from overflowing.
  const std::uint64_t max_count = (bytes.size() - data_start) / 4;

  HeaderParser p(bytes, header_start, data_start, path);
  p.expect('{', "'{' opening the header dict");
  bool have_descr = false, have_order = false, have_shape = false;
  bool fortran = false;
  std::uint64_t count = 1, dimensions_above_one = 0;
  while (!p.accept('}')) {
    p.skip_spaces();
    const std::size_t key_at = p.position();
    const std::string key = p.string_literal();
    p.expect(':', "':' after a key");
    if (key == "descr") {
      if (have_descr) p.fail_at(key_at, "duplicate key 'descr'");
      have_descr = true;
      p.skip_spaces();
      const std::size_t at = p.position();
      const std::string descr = p.string_literal();
      if (descr != "<f4" && descr != "=f4")
        p.fail_at(at, "dtype '" + descr + "' is not little-endian float32 ('<f4')");
    } else if (key == "fortran_order") {
      if (have_order) p.fail_at(key_at, "duplicate key 'fortran_order'");
      have_order = true;
      fortran = p.boolean_literal();
    } else if (key == "shape") {
      if (have_shape) p.fail_at(key_at, "duplicate key 'shape'");
      have_shape = true;
      p.expect('(', "'(' opening the shape");
      std::size_t dimensions = 0;
      bool zero = false;
      std::uint64_t product = 1;
      if (!p.accept(')')) {
        for (;;) {
          p.skip_spaces();
          const std::size_t at = p.position();
          const std::uint64_t extent = p.integer(std::numeric_limits<std::uint64_t>::max());
          ++dimensions;
          zero = zero || extent == 0;
          if (extent > max_count || (extent > 0 && product > max_count / extent)) {
            p.fail_at(at, "the shape describes more values than the " +
                              std::to_string(bytes.size() - data_start) +
                              " bytes of data after the header hold");
          }
          if (extent > 0) product *= extent;
          dimensions_above_one += extent > 1;
          if (p.accept(')')) break;
          p.expect(',', "',' or ')' in the shape");
          if (p.accept(')')) break;
          if (dimensions >= 64) p.fail("more than 64 dimensions");
        }
      }
      count = zero ? 0 : product;
    } else {
      p.fail_at(key_at, "unexpected key '" + key + "' (expected descr, fortran_order, shape)");
    }
    if (p.accept('}')) break;
    p.expect(',', "',' or '}' after a value");
  }
  p.skip_spaces();
  if (!p.at_end()) p.fail("unexpected text after the header dict");
  if (!have_descr) npy_error(path, header_start, "no 'descr' in the header");
  if (!have_order) npy_error(path, header_start, "no 'fortran_order' in the header");
  if (!have_shape) npy_error(path, header_start, "no 'shape' in the header");
  if (fortran && dimensions_above_one > 1)
    npy_error(path, header_start,
              "Fortran-ordered arrays are not supported (save with numpy.ascontiguousarray)");
  if (bytes.size() - data_start != 4 * count) {
    npy_error(path, data_start,
              "the shape needs " + std::to_string(4 * count) + " bytes of data, the file has " +
                  std::to_string(bytes.size() - data_start) + " after the header");
  }
  return {data_start, count};
}

}  // namespace sgdsim
