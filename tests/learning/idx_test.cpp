// The IDX reader and the Fashion-MNIST loader on small files written by the test, then on the real data.
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>

#include "algorithms/learning/fashion_mnist.hpp"
#include "algorithms/learning/file_bytes.hpp"
#include "algorithms/learning/idx.hpp"
#include "algorithms/learning/problem.hpp"
#include "common/error.hpp"
#include "helpers.hpp"

using namespace sgdsim;
using namespace sgdsim::learning;
using namespace sgdsim::learning::testing;

namespace {

std::vector<unsigned char> pixels(std::size_t images, unsigned char first) {
  std::vector<unsigned char> values(images * 28 * 28);
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = static_cast<unsigned char>(first + k * 7);
  return values;
}

// A miniature Fashion-MNIST folder: 3 training and 2 test images.
void write_fashion(const TempDir& dir) {
  write_gzip(dir.file("train-images-idx3-ubyte.gz"), idx_bytes({3, 28, 28}, pixels(3, 0)));
  write_gzip(dir.file("train-labels-idx1-ubyte.gz"), idx_bytes({3}, {9, 0, 4}));
  write_gzip(dir.file("t10k-images-idx3-ubyte.gz"), idx_bytes({2, 28, 28}, pixels(2, 255)));
  write_gzip(dir.file("t10k-labels-idx1-ubyte.gz"), idx_bytes({2}, {1, 2}));
}

Problem load(const std::string& data_json, const std::string& base = "") {
  SpecHolder holder(data_json, "$.data", datasets());
  return load_problem(holder.spec, 1, base);
}

}  // namespace

TEST_CASE("IDX arrays parse and validate magic, header and length") {
  const auto bytes = [](const std::string& s) { return std::vector<unsigned char>(s.begin(), s.end()); };
  const std::string good = idx_bytes({2, 3}, {1, 2, 3, 4, 5, 6});
  const IdxArray ok = parse_idx(bytes(good), 2, "a.idx");
  CHECK(ok.dims == std::vector<std::uint32_t>{2, 3});
  CHECK(ok.values == std::vector<unsigned char>{1, 2, 3, 4, 5, 6});
  CHECK_THROWS_WITH(
      parse_idx(bytes(good.substr(0, good.size() - 1)), 2, "a.idx"),
      Catch::Contains("a.idx") && Catch::Contains("truncated IDX data") && Catch::Contains("6"));
  CHECK_THROWS_WITH(parse_idx(bytes(good + "x"), 2, "a.idx"), Catch::Contains("unexpected bytes"));
  std::string magic = good;
  magic[2] = '\x0d';  // float type
  CHECK_THROWS_WITH(parse_idx(bytes(magic), 2, "a.idx"),
                    Catch::Contains("bad IDX magic number 0x00000d02") && Catch::Contains("0x00000802"));
  CHECK_THROWS_WITH(parse_idx(bytes(good), 3, "a.idx"), Catch::Contains("magic"));  // wrong rank
  CHECK_THROWS_WITH(parse_idx(bytes(good.substr(0, 9)), 2, "a.idx"), Catch::Contains("truncated IDX header"));
  CHECK_THROWS_WITH(parse_idx(bytes("\x00\x00"), 2, "a.idx"), Catch::Contains("too short"));
  CHECK_THROWS_WITH(parse_idx(bytes(idx_bytes({2, 0}, {})), 2, "a.idx"), Catch::Contains("size 0"));
  CHECK_THROWS_WITH(parse_idx(bytes(idx_bytes({0xffffffff, 0xffffffff}, {})), 2, "a.idx"),
                    Catch::Contains("more than 2^40"));
}

TEST_CASE("a Fashion-MNIST folder loads with pixels scaled to [0, 1]") {
  TempDir dir;
  write_fashion(dir);
  const Problem p = load(R"({"dataset": "fashion-mnist", "path": ")" + dir.path().string() + R"("})");
  REQUIRE(p.train.samples() == 3);
  REQUIRE(p.train.dimension() == 784);
  REQUIRE(p.test.samples() == 2);
  CHECK(p.train.labels == std::vector<std::int32_t>{9, 0, 4});
  CHECK(p.test.labels == std::vector<std::int32_t>{1, 2});
  CHECK(p.train.classes == 10);
  CHECK(p.train.feature(0, 0) == 0.0f);
  CHECK(p.train.feature(0, 1) == Approx(7.0 / 255));
  CHECK(p.test.feature(0, 0) == 1.0f);
  // The images stay bytes; every read gives exactly the float byte * (1/255) that models always saw.
  REQUIRE(p.train.holds_bytes());
  CHECK(p.train.feature(0, 1) == 7.0f * (1.0f / 255.0f));
  std::vector<float> row(784);
  std::vector<double> wide(784);
  p.train.copy_row(1, row.data());
  p.train.copy_row(1, wide.data());
  for (std::size_t c = 0; c < 784; ++c) {
    CHECK(row[c] == static_cast<float>(p.train.pixels(1, static_cast<Eigen::Index>(c))) * (1.0f / 255.0f));
    CHECK(wide[c] == static_cast<double>(row[c]));
  }
  // Relative paths resolve against the scenario's folder; "samples" keeps the first n.
  const Problem q = load(R"({"dataset": "fashion-mnist", "path": ")" + dir.path().filename().string() +
                             R"(", "samples": 2, "test_samples": 1})",
                         dir.path().parent_path().string());
  CHECK(q.train.samples() == 2);
  CHECK(q.test.samples() == 1);
  CHECK(q.train.labels == std::vector<std::int32_t>{9, 0});
}

TEST_CASE("uncompressed IDX files are accepted in place of the .gz ones") {
  TempDir dir;
  write_fashion(dir);
  std::filesystem::remove(dir.file("t10k-labels-idx1-ubyte.gz"));
  write_plain(dir.file("t10k-labels-idx1-ubyte"), idx_bytes({2}, {3, 3}));
  const Problem p = load(R"({"dataset": "fashion-mnist", "path": ")" + dir.path().string() + R"("})");
  CHECK(p.test.labels == std::vector<std::int32_t>{3, 3});
}

TEST_CASE("a FileBytesCache reads each data file once while alive, and a changed file again") {
  TempDir dir;
  write_fashion(dir);
  const std::string data = R"({"dataset": "fashion-mnist", "path": ")" + dir.path().string() + R"("})";
  {
    FileBytesCache cache;
    CHECK_THROWS_AS(FileBytesCache(), std::logic_error);  // one at a time
    const Problem first = load(data);
    CHECK(cache.reads() == 4);
    const Problem again = load(data);
    CHECK(cache.reads() == 4);
    CHECK(again.train.pixels == first.train.pixels);
    CHECK(again.test.labels == first.test.labels);
    // A rewritten file (its time moved on) is read again.
    write_gzip(dir.file("t10k-labels-idx1-ubyte.gz"), idx_bytes({2}, {5, 6}));
    std::filesystem::last_write_time(
        dir.file("t10k-labels-idx1-ubyte.gz"),
        std::filesystem::last_write_time(dir.file("t10k-labels-idx1-ubyte.gz")) + std::chrono::seconds(2));
    const Problem changed = load(data);
    CHECK(cache.reads() == 5);
    CHECK(changed.test.labels == std::vector<std::int32_t>{5, 6});
    // A file that does not parse is an error each time.
    write_plain(dir.file("train-labels-idx1-ubyte.gz"), "not gzip, not IDX");
    CHECK_THROWS_AS(load(data), InputError);
    CHECK_THROWS_AS(load(data), InputError);
  }
  // Without a cache every load reads the files.
  write_fashion(dir);
  CHECK(load(data).test.labels == std::vector<std::int32_t>{1, 2});
}

TEST_CASE("broken Fashion-MNIST files are InputErrors naming the file and the problem") {
  const auto expect_error = [](const std::function<void(const TempDir&)>& damage, const std::string& file,
                               const std::string& problem) {
    TempDir dir;
    write_fashion(dir);
    damage(dir);
    INFO(file << ": " << problem);
    CHECK_THROWS_WITH(load(R"({"dataset": "fashion-mnist", "path": ")" + dir.path().string() + R"("})"),
                      Catch::Contains(file) && Catch::Contains(problem));
  };
  expect_error([](const TempDir& d) { std::filesystem::remove(d.file("train-labels-idx1-ubyte.gz")); },
               "train-labels-idx1-ubyte.gz", "cannot open");
  expect_error(
      [](const TempDir& d) {
        const std::string full = idx_bytes({3, 28, 28}, pixels(3, 0));
        write_gzip(d.file("train-images-idx3-ubyte.gz"), full.substr(0, full.size() - 100));
      },
      "train-images-idx3-ubyte.gz", "truncated IDX data");
  expect_error(
      [](const TempDir& d) {
        // The gzip stream itself cut short.
        const std::string gz = gzip_bytes(idx_bytes({3, 28, 28}, pixels(3, 0)));
        write_plain(d.file("train-images-idx3-ubyte.gz"), gz.substr(0, gz.size() / 2));
      },
      "train-images-idx3-ubyte.gz", "truncated gzip");
  expect_error(
      [](const TempDir& d) {
        std::string gz = gzip_bytes(idx_bytes({3, 28, 28}, pixels(3, 0)));
        for (std::size_t k = 20; k < 60; ++k) gz[k] = static_cast<char>(gz[k] ^ 0x5a);
        write_plain(d.file("train-images-idx3-ubyte.gz"), gz);
      },
      "train-images-idx3-ubyte.gz", "corrupt");
  expect_error(
      [](const TempDir& d) {
        write_gzip(d.file("t10k-labels-idx1-ubyte.gz"), idx_bytes({2, 1}, {1, 2}));
      },
      "t10k-labels-idx1-ubyte.gz", "bad IDX magic");
  expect_error(
      [](const TempDir& d) {
        write_gzip(d.file("t10k-labels-idx1-ubyte.gz"), idx_bytes({3}, {1, 2, 3}));
      },
      "t10k-labels-idx1-ubyte.gz", "3 labels but");
  expect_error(
      [](const TempDir& d) {
        write_gzip(d.file("t10k-labels-idx1-ubyte.gz"), idx_bytes({2}, {1, 10}));
      },
      "t10k-labels-idx1-ubyte.gz", "label 10 of sample 1");
  expect_error(
      [](const TempDir& d) {
        write_gzip(d.file("train-images-idx3-ubyte.gz"),
                   idx_bytes({3, 27, 29}, std::vector<unsigned char>(3 * 27 * 29)));
      },
      "train-images-idx3-ubyte.gz", "28x28");
  expect_error([](const TempDir& d) { write_gzip(d.file("train-images-idx3-ubyte.gz"), ""); },
               "train-images-idx3-ubyte.gz", "too short");
}

TEST_CASE("the installed Debian Fashion-MNIST loads: 60000 + 10000 images, 6000 per class") {
  const auto start = std::chrono::steady_clock::now();
  const Problem p = load(R"({"dataset": "fashion-mnist"})");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(p.train.samples() == 60000);
  REQUIRE(p.test.samples() == 10000);
  CHECK(p.train.dimension() == 784);
  std::vector<int> counts(10);
  for (int label : p.train.labels) ++counts.at(static_cast<std::size_t>(label));
  CHECK(counts == std::vector<int>(10, 6000));
  REQUIRE(p.train.holds_bytes());  // a quarter of the memory of floats
  CHECK(p.train.pixels.minCoeff() == 0);
  CHECK(p.train.pixels.maxCoeff() == 255);
  const double mean = p.train.pixels.cast<double>().mean() / 255.0;
  CHECK(mean == Approx(0.286).margin(0.01));  // the published mean pixel intensity of Fashion-MNIST
  WARN("loading Fashion-MNIST took " << seconds << " s");
}
