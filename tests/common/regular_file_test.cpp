// Reading outside files: only regular files, and never more than the limit. FIFOs must be refused at once,
// not read (the [fifo] tests run under a short ctest timeout, so a hang fails them).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/error.hpp"
#include "common/regular_file.hpp"

using namespace sgdsim;
namespace fs = std::filesystem;

namespace {
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("sgdsim-regular-file-" + std::to_string(getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
};

std::string error_of(const std::string& path, std::uint64_t limit = max_json_file_bytes) {
  try {
    read_regular_file(path, limit);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("a regular file is read whole, up to and including the limit") {
  Scratch scratch;
  const fs::path file = scratch.dir / "ten.txt";
  std::ofstream(file) << "0123456789";
  CHECK(read_regular_file(file.string(), 10) == "0123456789");
  CHECK(read_regular_file_bytes(file.string(), 10).size() == 10);
  std::ofstream(scratch.dir / "empty.txt") << "";
  CHECK(read_regular_file((scratch.dir / "empty.txt").string(), 10).empty());
}

TEST_CASE("a file beyond the limit, a directory, a device and a missing file are refused, naming the file") {
  Scratch scratch;
  const fs::path file = scratch.dir / "eleven.txt";
  std::ofstream(file) << "0123456789A";
  CHECK_THAT(error_of(file.string(), 10),
             Catch::Contains("eleven.txt") && Catch::Contains("limit of 10 bytes"));
  CHECK_THAT(error_of(scratch.dir.string()), Catch::Contains(scratch.dir.string() + ": is a directory"));
  // /dev/zero never ends and /dev/urandom neither: both would be read until memory runs out.
  CHECK_THAT(error_of("/dev/zero"), Catch::Contains("/dev/zero: is a character device"));
  CHECK_THAT(error_of("/dev/urandom"), Catch::Contains("/dev/urandom: is a character device"));
  CHECK_THAT(error_of((scratch.dir / "missing").string()), Catch::Contains("missing: cannot open"));
  CHECK_THAT(error_of(""), Catch::Contains("empty file name"));
}

TEST_CASE("a FIFO is refused at once instead of blocking until a writer comes", "[fifo]") {
  Scratch scratch;
  const fs::path fifo = scratch.dir / "pipe";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(error_of(fifo.string()), Catch::Contains("pipe: is a FIFO"));
  std::uint64_t size = 0;
  CHECK_THROWS_AS(open_regular_file(fifo.string(), 100, size), InputError);
}
