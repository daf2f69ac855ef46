// The LIBSVM reader on small files written by the test.
#include <catch2/catch.hpp>

#include "algorithms/learning/libsvm.hpp"
#include "algorithms/learning/problem.hpp"
#include "common/error.hpp"
#include "helpers.hpp"

using namespace sgdsim;
using namespace sgdsim::learning;
using namespace sgdsim::learning::testing;

namespace {

Problem load(const std::string& data_json, const std::string& base) {
  SpecHolder holder(data_json, "$.data", datasets());
  return load_problem(holder.spec, 1, base);
}

}  // namespace

TEST_CASE("LIBSVM binary files: sparse rows become dense, -1/+1 become classes 0/1") {
  TempDir dir;
  write_plain(dir.file("train.txt"),
              "# a comment line\n"
              "+1 1:0.5 3:-2 # trailing comment\n"
              "-1 2:1e-1\r\n"
              "\n"
              "1\t4:3\n");
  write_gzip(dir.file("test.txt.gz"), "-1 1:1 5:2\n");
  const Problem p =
      load(R"({"dataset": "libsvm", "path": "train.txt", "test_path": "test.txt.gz"})", dir.path().string());
  REQUIRE(p.train.samples() == 3);
  REQUIRE(p.train.dimension() == 5);  // the test file's index 5 widens both
  REQUIRE(p.test.dimension() == 5);
  CHECK(p.train.classes == 2);
  CHECK(p.train.labels == std::vector<std::int32_t>{1, 0, 1});
  CHECK(p.test.labels == std::vector<std::int32_t>{0});
  CHECK(p.train.class_values == std::vector<double>{-1, 1});
  CHECK(p.train.targets == std::vector<float>{1, -1, 1});
  CHECK(p.train.features(0, 0) == 0.5f);
  CHECK(p.train.features(0, 1) == 0.0f);
  CHECK(p.train.features(0, 2) == -2.0f);
  CHECK(p.train.features(1, 1) == 0.1f);
  CHECK(p.train.features(2, 3) == 3.0f);
  CHECK(p.test.features(0, 4) == 2.0f);
}

TEST_CASE("LIBSVM label codings: 0/1 kept, other integers numbered in order, reals mean regression") {
  TempDir dir;
  write_plain(dir.file("zero_one.txt"), "0 1:1\n1 1:2\n");
  Problem p = load(R"({"dataset": "libsvm", "path": "zero_one.txt"})", dir.path().string());
  CHECK(p.train.labels == std::vector<std::int32_t>{0, 1});
  CHECK(p.test.samples() == 0);
  write_plain(dir.file("multi.txt"), "7 1:1\n3 2:1\n5 1:1\n3 1:3\n");
  p = load(R"({"dataset": "libsvm", "path": "multi.txt", "features": 4})", dir.path().string());
  CHECK(p.train.classes == 3);
  CHECK(p.train.class_values == std::vector<double>{3, 5, 7});
  CHECK(p.train.labels == std::vector<std::int32_t>{2, 0, 1, 0});
  CHECK(p.train.dimension() == 4);
  write_plain(dir.file("real.txt"), "0.5 1:1\n-1.25 2:1\n");
  p = load(R"({"dataset": "libsvm", "path": "real.txt"})", dir.path().string());
  CHECK(p.train.classes == 0);
  CHECK(p.train.labels.empty());
  CHECK(p.train.targets == std::vector<float>{0.5f, -1.25f});
}

TEST_CASE("bad LIBSVM lines are InputErrors with the file and line number") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1 1:1\n1 2:x\n", "line 2: bad feature value"},
      {"1 1:1\nabc 2:1\n", "line 2: bad label"},
      {"1 1:1\n\n1 3:1 2:1\n", "line 3: feature indices must increase"},
      {"1 1:1 1:2\n", "line 1: feature indices must increase"},
      {"1 0:1\n", "line 1: bad feature index"},
      {"1 -3:1\n", "line 1: bad feature index"},
      {"1 1\n", "line 1: bad feature: expected index:value"},
      {"1:1 2:2\n", "line 1: the line must start with a label"},
      {"1 qid:3 1:1\n", "qid"},
      {"1 1:nan\n", "line 1: bad feature value"},
      {"1 1:1e39\n", "single-precision"},
      {"inf 1:1\n", "bad label"},
      {"# only a comment\n\n", "no samples"},
      {"", "no samples"},
      {std::string("1 1:1\n\0\0\0", 9), "NUL bytes"},
  };
  for (const auto& [text, message] : cases) {
    TempDir dir;
    write_plain(dir.file("bad.txt"), text);
    INFO(message);
    CHECK_THROWS_WITH(load(R"({"dataset": "libsvm", "path": "bad.txt"})", dir.path().string()),
                      Catch::Contains("bad.txt") && Catch::Contains(message));
  }
}

TEST_CASE("LIBSVM file-level errors") {
  TempDir dir;
  CHECK_THROWS_WITH(load(R"({"dataset": "libsvm", "path": "missing.txt"})", dir.path().string()),
                    Catch::Contains("missing.txt") && Catch::Contains("cannot open"));
  CHECK_THROWS_WITH(load(R"({"dataset": "libsvm"})", dir.path().string()), Catch::Contains("$.data.path"));
  write_plain(dir.file("a.txt"), "1 3:1\n");
  CHECK_THROWS_WITH(load(R"({"dataset": "libsvm", "path": "a.txt", "features": 2})", dir.path().string()),
                    Catch::Contains("$.data.features") && Catch::Contains("feature index 3"));
  write_plain(dir.file("empty_rows.txt"), "1\n-1\n");
  CHECK_THROWS_WITH(load(R"({"dataset": "libsvm", "path": "empty_rows.txt"})", dir.path().string()),
                    Catch::Contains("no sample has any feature"));
  // A gzip file cut short.
  const std::string gz = gzip_bytes(std::string(5000, '1') + " 1:1\n");
  write_plain(dir.file("cut.txt.gz"), gz.substr(0, gz.size() - 10));
  CHECK_THROWS_WITH(load(R"({"dataset": "libsvm", "path": "cut.txt.gz"})", dir.path().string()),
                    Catch::Contains("cut.txt.gz") && Catch::Contains("truncated gzip"));
}
