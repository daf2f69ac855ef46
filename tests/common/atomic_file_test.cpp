// Writing outputs: a regular file is replaced whole; a device or FIFO at the path is written through and
// stays what it was (renaming over it would replace even /dev/null when run as root); other kinds are
// refused. Devices are copies made with mknod in a scratch folder, never the real ones.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "common/atomic_file.hpp"
#include "common/error.hpp"

using namespace sgdsim;
namespace fs = std::filesystem;

namespace {
struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("sgdsim-atomic-file-" + std::to_string(getpid()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
};

mode_t type_of(const fs::path& path) {
  struct stat s {};
  REQUIRE(lstat(path.c_str(), &s) == 0);
  return s.st_mode & S_IFMT;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
}  // namespace

TEST_CASE("a regular file is replaced whole, and no temporary file is left") {
  Scratch scratch;
  const fs::path file = scratch.dir / "out.txt";
  std::ofstream(file) << "old content that is longer";
  write_file_atomically(file, "new");
  CHECK(read_text(file) == "new");
  CHECK(std::distance(fs::directory_iterator(scratch.dir), fs::directory_iterator()) == 1);
}

TEST_CASE("copies of /dev/null and /dev/full are written through and stay devices") {
  if (geteuid() != 0) {
    WARN("not root: mknod cannot make device nodes here; skipped");
    return;
  }
  Scratch scratch;
  const fs::path null = scratch.dir / "null";
  const fs::path full = scratch.dir / "full";
  REQUIRE(mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
  REQUIRE(mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
  write_file_atomically(null, "discarded");
  CHECK(type_of(null) == S_IFCHR);
  // /dev/full refuses every byte: an error naming the file, and the node is still there.
  CHECK_THROWS_WITH(write_file_atomically(full, "lost"),
                    Catch::Contains(full.string()) && Catch::Contains("No space left"));
  CHECK(type_of(full) == S_IFCHR);
  CHECK(std::distance(fs::directory_iterator(scratch.dir), fs::directory_iterator()) == 2);
}

TEST_CASE("a block device, a directory and a socket at the path are refused, naming it") {
  Scratch scratch;
  const fs::path folder = scratch.dir / "folder";
  fs::create_directories(folder);
  CHECK_THROWS_AS(write_file_atomically(folder, "x"), InputError);
  CHECK_THROWS_WITH(write_file_atomically(folder, "x"), Catch::Contains("folder: is a directory"));
  CHECK(fs::is_directory(folder));
  if (geteuid() == 0) {
    // Major 240 is reserved for local use: no driver answers, so even a wrong write-through could do no harm.
    const fs::path block = scratch.dir / "block";
    REQUIRE(mknod(block.c_str(), S_IFBLK | 0600, makedev(240, 0)) == 0);
    CHECK_THROWS_WITH(write_file_atomically(block, "x"), Catch::Contains("block: is a block device"));
    CHECK(type_of(block) == S_IFBLK);
  }
}

TEST_CASE("a FIFO is written through to its reader and stays a FIFO", "[fifo]") {
  Scratch scratch;
  const fs::path fifo = scratch.dir / "pipe";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  std::string received;
  std::thread reader([&] { received = read_text(fifo); });
  write_file_atomically(fifo, "through the pipe\n");
  reader.join();
  CHECK(received == "through the pipe\n");
  CHECK(type_of(fifo) == S_IFIFO);
}
