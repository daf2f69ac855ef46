// The `edges` topology: an edge-list file, relative to the scenario's folder, with line-numbered errors.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>
#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "tests/topologies/make.hpp"

using sgdsim::InputError;
using sgdsim::testing::make;

namespace {

// A fresh folder per test process, removed at the end.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() / ("sgdsim-edges-" + std::to_string(getpid()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path / name) << text; }
};

std::string error_of(const std::string& network, const std::string& base) {
  try {
    make(network, 1, base);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("edges file with comments and blank lines and repeated pairs and a relative path") {
  TempDir dir;
  dir.write("g.txt", "# a path 0-1-2-3 plus a chord\n0 1\n\n1 2   # trailing comment\n2\t3\n3 2\n0 2\n");
  auto t = make(R"({"topology": {"kind": "edges", "path": "g.txt"}})", 1, dir.path.string());
  CHECK(t.nodes == 4);
  CHECK(t.edges.size() == 4);  // "3 2" repeats "2 3"
  CHECK(t.kind == "edges");
  CHECK(t.neighbors[2] == std::vector<std::size_t>{0, 1, 3});
}

TEST_CASE("edges file errors name the file and line") {
  TempDir dir;
  const std::string base = dir.path.string();
  auto with = [&](const std::string& text) {
    dir.write("bad.txt", text);
    return error_of(R"({"topology": {"kind": "edges", "path": "bad.txt"}})", base);
  };
  CHECK_THAT(with("0 1\n1 x\n"), Catch::Contains("bad.txt:2:") && Catch::Contains("\"x\""));
  CHECK_THAT(with("0 1\n1 2 3\n"), Catch::Contains("bad.txt:2:") && Catch::Contains("more"));
  CHECK_THAT(with("0 1\n\n4\n"), Catch::Contains("bad.txt:3:") && Catch::Contains("found one"));
  CHECK_THAT(with("0 1\n2 2\n"), Catch::Contains("bad.txt:2:") && Catch::Contains("self-loop"));
  CHECK_THAT(with("0 -1\n"), Catch::Contains("bad.txt:1:"));
  CHECK_THAT(with("# nothing\n"), Catch::Contains("no edges"));
  CHECK_THAT(with("0 1\n2 3\n"),
             Catch::Contains("not connected") && Catch::Contains("$.network.topology.path"));
  CHECK_THAT(error_of(R"({"topology": {"kind": "edges", "path": "missing.txt"}})", base),
             Catch::Contains("missing.txt") && Catch::Contains("cannot open"));
  // A declared node count catches isolated nodes and ids out of range.
  dir.write("ok.txt", "0 1\n1 2\n");
  CHECK_THAT(error_of(R"({"topology": {"kind": "edges", "path": "ok.txt", "nodes": 4}})", base),
             Catch::Contains("not connected"));
  CHECK_THAT(error_of(R"({"topology": {"kind": "edges", "path": "ok.txt", "nodes": 2}})", base),
             Catch::Contains("ok.txt:2:") && Catch::Contains("larger than 1"));
}

TEST_CASE("an edge list that is a FIFO is refused without blocking", "[fifo]") {
  TempDir dir;
  const auto fifo = dir.path / "pipe";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THAT(error_of(R"({"topology": {"kind": "edges", "path": "pipe"}})", dir.path.string()),
             Catch::Contains("pipe: is a FIFO"));
}

TEST_CASE("an edge list that is a device or a directory is refused instead of read") {
  TempDir dir;
  CHECK_THAT(error_of(R"({"topology": {"kind": "edges", "path": "/dev/zero"}})", dir.path.string()),
             Catch::Contains("/dev/zero: is a character device"));
  CHECK_THAT(error_of(R"({"topology": {"kind": "edges", "path": "/dev/urandom"}})", dir.path.string()),
             Catch::Contains("/dev/urandom: is a character device"));
  CHECK_THAT(error_of(R"({"topology": {"kind": "edges", "path": "."}})", dir.path.string()),
             Catch::Contains("is a directory"));
}
