// The CIFAR-10 binary reader on small files written by the test (CIFAR-10 itself is not installed here).
#include <catch2/catch.hpp>

#include "algorithms/learning/cifar10.hpp"
#include "common/error.hpp"
#include "helpers.hpp"

using namespace sgdsim;
using namespace sgdsim::learning;
using namespace sgdsim::learning::testing;

namespace {

// `n` records with labels label0, label0 + 1, ... (mod 10) and pixel j of record i = (i + 7 j) mod 256.
std::string records(std::size_t n, int label0) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(static_cast<char>((label0 + i) % 10));
    for (std::size_t j = 0; j < 3072; ++j) out.push_back(static_cast<char>((i + 7 * j) % 256));
  }
  return out;
}

std::vector<unsigned char> bytes(const std::string& s) {
  return {s.begin(), s.end()};
}

}  // namespace

TEST_CASE("CIFAR-10 records parse into 3x32x32 images scaled to [0, 1]") {
  const Dataset d = parse_cifar10(bytes(records(3, 8)), "b.bin");
  REQUIRE(d.samples() == 3);
  REQUIRE(d.dimension() == 3072);
  CHECK(d.image == ImageShape{3, 32, 32});
  CHECK(d.classes == 10);
  CHECK(d.labels == std::vector<std::int32_t>{8, 9, 0});
  CHECK(d.feature(0, 0) == 0.0f);
  CHECK(d.feature(0, 1) == Approx(7.0 / 255));
  // Record 2, pixel 1024 = first green pixel: (2 + 7 * 1024) mod 256 = 2.
  CHECK(d.feature(2, 1024) == Approx(2.0 / 255));
}

TEST_CASE("corrupt CIFAR-10 files are errors naming the file and the byte offset") {
  const std::string good = records(2, 0);
  CHECK_THROWS_AS(parse_cifar10(bytes(good.substr(0, 100)), "b.bin"), InputError);
  CHECK_THROWS_WITH(parse_cifar10(bytes(good.substr(0, good.size() - 1)), "b.bin"),
                    Catch::Contains("b.bin") && Catch::Contains("truncated") && Catch::Contains("record 1") &&
                        Catch::Contains("byte offset 3073"));
  CHECK_THROWS_WITH(parse_cifar10(bytes(good + "x"), "b.bin"), Catch::Contains("byte offset 6146"));
  CHECK_THROWS_WITH(parse_cifar10({}, "b.bin"), Catch::Contains("b.bin") && Catch::Contains("empty"));
  std::string bad_label = good;
  bad_label[3073] = 10;
  CHECK_THROWS_WITH(parse_cifar10(bytes(bad_label), "b.bin"),
                    Catch::Contains("label 10 of record 1") && Catch::Contains("byte offset 3073"));
}

TEST_CASE("a CIFAR-10 folder loads five training batches and the test batch") {
  TempDir dir;
  for (int b = 1; b <= 5; ++b)
    write_plain(dir.file("data_batch_" + std::to_string(b) + ".bin"), records(2, b));
  write_gzip(dir.file("test_batch.bin"), records(3, 0));  // gzip-compressed copies are read too
  const Problem p = load_cifar10(dir.path().string());
  REQUIRE(p.train.samples() == 10);
  REQUIRE(p.test.samples() == 3);
  CHECK(p.train.labels == std::vector<std::int32_t>{1, 2, 2, 3, 3, 4, 4, 5, 5, 6});
  CHECK(p.train.image == ImageShape{3, 32, 32});
  CHECK(p.test.image == ImageShape{3, 32, 32});
  CHECK(p.train.feature(2, 1) == Approx(7.0 / 255));  // first record of data_batch_2
  std::filesystem::remove(dir.file("data_batch_4.bin"));
  CHECK_THROWS_WITH(load_cifar10(dir.path().string()),
                    Catch::Contains("data_batch_4.bin") && Catch::Contains("no such file"));
  write_plain(dir.file("data_batch_4.bin"), records(2, 0).substr(0, 5000));
  CHECK_THROWS_WITH(load_cifar10(dir.path().string()),
                    Catch::Contains("data_batch_4.bin") && Catch::Contains("byte offset 3073"));
}
