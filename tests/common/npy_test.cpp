// The .npy header parser: every legal header (up to the 64 KiB of format 1.0 and beyond with 2.0) parses, and
// every malformed one is an InputError naming the file and the byte offset. The files are built here, byte by
// byte.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/npy.hpp"

using namespace sgdsim;

namespace {

// A .npy file with the given header dict (padded with `padding` spaces and a newline) and `values` zero
// floats.
std::string npy_file(const std::string& dict, std::size_t values, int version = 1, std::size_t padding = 0) {
  std::string header = dict + std::string(padding, ' ') + "\n";
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(version);
  out += '\0';
  const std::size_t n = header.size();
  out += static_cast<char>(n & 0xFF);
  out += static_cast<char>((n >> 8) & 0xFF);
  if (version >= 2) {
    out += static_cast<char>((n >> 16) & 0xFF);
    out += static_cast<char>((n >> 24) & 0xFF);
  }
  return out + header + std::string(4 * values, '\0');
}

std::string dict(const std::string& shape) {
  return "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
}

NpyLayout parse(const std::string& file) {
  const std::vector<std::uint8_t> bytes(file.begin(), file.end());
  return parse_npy(bytes, "v.npy");
}

// The error message for `file`, or "" when it parses.
std::string error_of(const std::string& file) {
  try {
    parse(file);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("legal .npy headers parse, however long, in format 1.0 and 2.0") {
  SECTION("plain") {
    const NpyLayout layout = parse(npy_file(dict("(3, 4)"), 12));
    CHECK(layout.count == 12);
    CHECK(layout.data_offset == 10 + dict("(3, 4)").size() + 1);
  }
  SECTION("a header of about 60 KB (legal in format 1.0; it overflowed the stack of the old regex parser)") {
    const std::string file = npy_file(dict("(5,)"), 5, 1, 60000);
    REQUIRE(file.size() > 60000);
    CHECK(parse(file).count == 5);
  }
  SECTION("format 2.0 with a 1 MB header") {
    CHECK(parse(npy_file(dict("(2,)"), 2, 2, 1 << 20)).count == 2);
  }
  SECTION("other spellings numpy accepts") {
    CHECK(parse(npy_file("{'descr':'<f4','fortran_order':False,'shape':(7,)}", 7)).count == 7);
    CHECK(parse(npy_file("{\"shape\": (2, 3), \"fortran_order\": False, \"descr\": \"<f4\"}", 6)).count == 6);
    CHECK(parse(npy_file(dict("()"), 1)).count == 1);    // a 0-d array holds one value
    CHECK(parse(npy_file(dict("(0,)"), 0)).count == 0);  // empty: refused later, by its caller
    CHECK(parse(npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 9), }", 9)).count == 9);
  }
}

TEST_CASE("malformed .npy shapes are InputErrors naming the file and the byte offset") {
  struct Case {
    std::string shape;
    std::size_t values;
    std::string message;
    std::string at;  // the text whose position is the reported offset
  };
  const std::vector<Case> cases = {
      {"(99999999999999999999999,)", 0, "does not fit in 64 bits", "99999"},
      {"(-3,)", 3, "non-negative integer", "-3"},
      {"(a3b,)", 3, "non-negative integer", "a3b"},
      {"(3b,)", 3, "',' or ')'", "b,)"},
      {"(+3,)", 3, "non-negative integer", "+3"},
      {"(3.0,)", 3, "',' or ')'", ".0"},
      {"(0x3,)", 3, "',' or ')'", "x3"},
      {"(3,,)", 3, "non-negative integer", ",)"},
      {"((3,),)", 3, "non-negative integer", "(3,)"},
      {"(3", 3, "non-negative integer", "}"},
      // 2^62 + 1 times 4 wraps around 2^64 to 4: the old parser accepted it with 16 bytes of data.
      {"(4611686018427387905, 4)", 4, "more values than", "4611686018427387905"},
      {"(4294967296, 4294967296)", 0, "more values than", "4294967296"},
      {"(5,)", 4, "more values than", "5,"},
  };
  for (const auto& c : cases) {
    INFO(c.shape);
    const std::string file = npy_file(dict(c.shape), c.values);
    const std::string message = error_of(file);
    CHECK_THAT(message, Catch::Contains("v.npy") && Catch::Contains(c.message));
    CHECK_THAT(message, Catch::Contains("byte offset " + std::to_string(file.find(c.at, 10))));
  }
}

TEST_CASE("malformed .npy headers are InputErrors naming the file and the byte offset") {
  const std::string f4 = "'descr': '<f4'", order = "'fortran_order': False", shape = "'shape': (2,)";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{" + order + ", " + shape + "}", "no 'descr'"},
      {"{" + f4 + ", " + shape + "}", "no 'fortran_order'"},
      {"{" + f4 + ", " + order + "}", "no 'shape'"},
      {"{'descr': '<f8', " + order + ", " + shape + "}", "dtype '<f8'"},
      {"{'descr': '>f4', " + order + ", " + shape + "}", "dtype '>f4'"},
      {"{" + f4 + ", " + f4 + ", " + order + ", " + shape + "}", "duplicate key 'descr'"},
      {"{" + f4 + ", " + order + ", " + shape + ", 'extra': 1}", "unexpected key 'extra'"},
      {"{" + f4 + ", 'fortran_order': Truex, " + shape + "}", "True or False"},
      {"{'descr: '<f4', " + order + ", " + shape + "}", "':' after a key"},
      {"{'descr': '<f4 " + std::string(100, 'x'), "longer than 64"},
      {"{" + f4 + " " + order + "}", "',' or '}'"},
      {"{" + f4 + ", " + order + ", " + shape + "} junk", "unexpected text after"},
      {"[" + f4 + "]", "'{' opening"},
      {"", "'{' opening"},
  };
  for (const auto& [header, message] : cases) {
    INFO(header);
    const std::string text = error_of(npy_file(header, 2));
    CHECK_THAT(text, Catch::Contains("v.npy") && Catch::Contains(message) && Catch::Contains("byte offset"));
  }
  CHECK_THAT(error_of(npy_file("{" + f4 + ", 'fortran_order': True, 'shape': (2, 2)}", 4)),
             Catch::Contains("Fortran-ordered"));
  SECTION("the frame around the dict") {
    std::string file = npy_file(dict("(2,)"), 2);
    CHECK_THAT(error_of(file.substr(0, 9)), Catch::Contains("truncated header"));
    CHECK_THAT(error_of("\x93NUMPX" + file.substr(6)),
               Catch::Contains("magic") && Catch::Contains("byte offset 0"));
    std::string v9 = file;
    v9[6] = 9;
    CHECK_THAT(error_of(v9), Catch::Contains("version 9") && Catch::Contains("byte offset 6"));
    std::string long_header = file;
    long_header[8] = '\xFF', long_header[9] = '\xFF';  // declares 65535 bytes, the file has fewer
    CHECK_THAT(error_of(long_header), Catch::Contains("declares 65535 bytes"));
    CHECK_THAT(error_of(file + "x"), Catch::Contains("needs 8 bytes of data, the file has 9"));
  }
}
