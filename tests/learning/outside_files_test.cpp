// The data readers on files a hostile user could give: FIFOs and devices are refused at once (the [fifo]
// tests run under a short ctest timeout), and an IDX file is decompressed no further than its header
// declares.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include "algorithms/learning/idx.hpp"
#include "algorithms/learning/libsvm.hpp"
#include "common/error.hpp"
#include "helpers.hpp"

using namespace sgdsim;
using namespace sgdsim::learning;
using namespace sgdsim::learning::testing;

TEST_CASE("IDX and LIBSVM readers refuse a FIFO without blocking", "[fifo]") {
  TempDir dir;
  const std::string fifo = dir.file("pipe");
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(read_idx_file(fifo, 1), Catch::Contains("pipe: is a FIFO"));
  CHECK_THROWS_WITH(read_libsvm_file(fifo), Catch::Contains("pipe: is a FIFO"));
}

TEST_CASE("IDX and LIBSVM readers refuse devices and directories instead of reading them") {
  TempDir dir;
  CHECK_THROWS_WITH(read_idx_file("/dev/zero", 1), Catch::Contains("/dev/zero: is a character device"));
  CHECK_THROWS_WITH(read_libsvm_file("/dev/urandom"), Catch::Contains("/dev/urandom: is a character device"));
  CHECK_THROWS_WITH(read_libsvm_file(dir.path().string()), Catch::Contains("is a directory"));
}

TEST_CASE("an IDX file is decompressed only as far as its header declares") {
  TempDir dir;
  // Three labels, then a megabyte the header does not declare, then a damaged gzip trailer. Reading to the
  // end (as an unbounded reader does) would meet the damage; the bounded one stops right after the declared
  // bytes.
  const std::string idx = idx_bytes({3}, {1, 2, 3});
  std::string gz = gzip_bytes(idx + std::string(1 << 20, '\0'));
  for (std::size_t k = gz.size() - 8; k < gz.size(); ++k) gz[k] = static_cast<char>(gz[k] ^ 0xFF);
  write_plain(dir.file("labels.gz"), gz);
  CHECK_THROWS_WITH(read_idx_file(dir.file("labels.gz"), 1),
                    Catch::Contains("labels.gz") && Catch::Contains("unexpected bytes at byte offset 11"));
  // The same without the surplus reads as usual; with the surplus and an intact stream it is refused the same
  // way.
  write_gzip(dir.file("good.gz"), idx);
  CHECK(read_idx_file(dir.file("good.gz"), 1).values == std::vector<unsigned char>{1, 2, 3});
  write_gzip(dir.file("long.gz"), idx + "x");
  CHECK_THROWS_WITH(read_idx_file(dir.file("long.gz"), 1),
                    Catch::Contains("unexpected bytes at byte offset 11"));
}
