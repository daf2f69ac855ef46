// `sgdsim compress` end to end: the report against the exact expectation, .npy and raw input, errors exit 2.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "algorithms/compression/compressor.hpp"
#include "common/keys.hpp"
#include "oracle.hpp"
#include "tests/support/child.hpp"

using namespace sgdsim;
using namespace sgdsim::testing;

namespace {
std::filesystem::path scratch() {
  auto dir = std::filesystem::temp_directory_path() / ("sgdsim-compress-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}
void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}
std::string raw(const std::vector<float>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), 4 * v.size());
}
std::string npy(const std::vector<float>& v, const std::string& shape) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
  dict += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size()), out += '\0';
  return out + dict + raw(v);
}
CommandResult compress(const std::string& args) {
  return run_command(std::string(SGDSIM_BINARY) + " compress " + args);
}
}  // namespace

TEST_CASE("compress --json reports the dimension, mean bits and the error the exact formula predicts") {
  const auto dir = scratch();
  const std::vector<float> v = test_vector("heavy", 500, 21);
  write_bytes(dir / "v.f32", raw(v));
  const CommandResult r = compress(
      R"(--compressor '{"kind": "qsgd", "levels": 2, "bucket": 0}' --repeat 400 --seed 3 --json --input )" +
      (dir / "v.f32").string());
  REQUIRE(r.exit_code == 0);
  const auto report = nlohmann::json::parse(r.output);
  CHECK(report["dimension"] == 500);
  CHECK(report["bits_per_coordinate"].get<double>() == Approx(report["bits"].get<double>() / 500));
  // Bits: whole bytes, at least the 32-bit norm; far below the paper's bound.
  CHECK(report["bits"].get<double>() >= 32);
  const double norm2 = l2_norm(v) * l2_norm(v);
  double expected = 0, variance = 0;
  for (float x : v) {
    const Rounding q = round_oracle(x, static_cast<float>(l2_norm(v)), paper_uniform_levels(2));
    expected += q.variance();
    const double a = (q.low - x) * (q.low - x), b = (q.high - x) * (q.high - x);
    variance += q.p * (1 - q.p) * (b - a) * (b - a);
  }
  CHECK(std::fabs(report["relative_squared_error"].get<double>() - expected / norm2) <=
        4.5 * std::sqrt(variance / 400) / norm2 + 1e-6);
  std::filesystem::remove_all(dir);
}

TEST_CASE("compress reads .npy, writes the decoded vector, and none is lossless at 32 bits per coordinate") {
  const auto dir = scratch();
  const std::vector<float> v = test_vector("gaussian", 60, 5);
  write_bytes(dir / "v.npy", npy(v, "(6, 10)"));
  const CommandResult r = compress(R"(--compressor '{"kind": "none"}' --json --input )" +
                                   (dir / "v.npy").string() + " --output " + (dir / "out.f32").string());
  REQUIRE(r.exit_code == 0);
  const auto report = nlohmann::json::parse(r.output);
  CHECK(report["dimension"] == 60);
  CHECK(report["bits"] == 32 * 60);
  CHECK(report["relative_squared_error"] == 0);
  std::ifstream in(dir / "out.f32", std::ios::binary);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(written == raw(v));
  // The decoded vector as .npy reads back as input.
  REQUIRE(compress(R"(--compressor '{"kind": "sign"}' --input )" + (dir / "v.npy").string() + " --output " +
                   (dir / "s.npy").string())
              .exit_code == 0);
  const CommandResult again =
      compress(R"(--compressor '{"kind": "none"}' --json --input )" + (dir / "s.npy").string());
  REQUIRE(again.exit_code == 0);
  CHECK(nlohmann::json::parse(again.output)["dimension"] == 60);
  std::filesystem::remove_all(dir);
}

TEST_CASE("compress rejects bad input with exit code 2 and a message naming the problem") {
  const auto dir = scratch();
  write_bytes(dir / "odd.f32", std::string(10, '\0'));
  write_bytes(dir / "empty.f32", "");
  std::vector<float> bad = {1.0f, std::nanf(""), 2.0f};
  write_bytes(dir / "nan.f32", raw(bad));
  std::string f8 = npy({0.0f, 0.0f}, "(1,)");
  f8.replace(f8.find("<f4"), 3, "<f8");
  write_bytes(dir / "f8.npy", f8);
  write_bytes(dir / "short.npy", npy({1.0f, 2.0f}, "(3,)"));
  write_bytes(dir / "v.f32", raw({1.0f, 2.0f, 3.0f}));
  const std::string qsgd = R"(--compressor '{"kind": "qsgd"}' --input )";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {qsgd + (dir / "missing.f32").string(), "cannot open"},
      {qsgd + (dir / "odd.f32").string(), "multiple of 4"},
      {qsgd + (dir / "empty.f32").string(), "empty"},
      {qsgd + (dir / "nan.f32").string(), "not finite"},
      {qsgd + (dir / "f8.npy").string(), "dtype '<f8'"},
      {qsgd + (dir / "short.npy").string(), "after the header"},
      {R"(--compressor '{"kind": "qsgd", "levls": 3}' --input )" + (dir / "v.f32").string(), "$.levls"},
      {R"(--compressor '{"kind": "topk", "k": 5}' --input )" + (dir / "v.f32").string(),
       "exceeds the dimension 3"},
      {R"(--compressor '{"kind": ' --input )" + (dir / "v.f32").string(), "invalid JSON"},
      {qsgd + (dir / "v.f32").string() + " --repeat 0", "repeat"},
  };
  for (const auto& [args, message] : cases) {
    INFO(args);
    const CommandResult r = compress(args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(message));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("compress reads a .npy header of about 60 KB, and malformed shapes exit 2 with the byte offset") {
  const auto dir = scratch();
  // Legal in format 1.0 (up to 64 KiB); the regex parser it replaced overflowed the stack on it.
  std::string big = npy({1.0f, 2.0f, 3.0f}, "(3,)");
  big.insert(10 + big.substr(10).find('\n'), std::string(60000 - 64, ' '));
  const std::size_t header = big.size() - 10 - 12;
  big[8] = static_cast<char>(header & 0xFF), big[9] = static_cast<char>(header >> 8);
  write_bytes(dir / "big.npy", big);
  const CommandResult ok =
      compress(R"(--compressor '{"kind": "none"}' --json --input )" + (dir / "big.npy").string());
  INFO(ok.output);
  REQUIRE(ok.exit_code == 0);
  CHECK(nlohmann::json::parse(ok.output)["dimension"] == 3);
  for (const char* shape : {"(99999999999999999999999,)", "(-3,)", "(a3b,)", "(4611686018427387905, 4)"}) {
    INFO(shape);
    write_bytes(dir / "bad.npy", npy({1.0f, 2.0f, 3.0f, 4.0f}, shape));
    const CommandResult r =
        compress(R"(--compressor '{"kind": "none"}' --input )" + (dir / "bad.npy").string());
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains("bad.npy") && Catch::Contains("byte offset"));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("compress refuses devices as input instead of reading them until memory runs out") {
  for (const std::string& device : std::vector<std::string>{"/dev/zero", "/dev/urandom"}) {
    const CommandResult r = compress(R"(--compressor '{"kind": "none"}' --input )" + device);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(device + ": is a character device"));
  }
}

TEST_CASE("compress refuses a FIFO as input or compressor file without blocking", "[fifo]") {
  const auto dir = scratch();
  const auto fifo = dir / "pipe";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  write_bytes(dir / "v.f32", raw({1.0f, 2.0f}));
  const CommandResult input = compress(R"(--compressor '{"kind": "none"}' --input )" + fifo.string());
  CHECK(input.exit_code == 2);
  CHECK_THAT(input.output, Catch::Contains("pipe: is a FIFO"));
  const CommandResult spec =
      compress("--compressor " + fifo.string() + " --input " + (dir / "v.f32").string());
  CHECK(spec.exit_code == 2);
  CHECK_THAT(spec.output, Catch::Contains("pipe: is a FIFO"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("compress --output to a device node writes through it instead of replacing it") {
  if (geteuid() != 0) {
    WARN("not root: mknod cannot make device nodes here; skipped");
    return;
  }
  const auto dir = scratch();
  write_bytes(dir / "v.f32", raw({1.0f, 2.0f}));
  const auto null = dir / "null";
  const auto full = dir / "full";
  REQUIRE(mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
  REQUIRE(mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
  const std::string input = R"(--compressor '{"kind": "none"}' --input )" + (dir / "v.f32").string();
  const CommandResult to_null = compress(input + " --output " + null.string());
  CHECK(to_null.exit_code == 0);
  const CommandResult to_full = compress(input + " --output " + full.string());
  CHECK(to_full.exit_code != 0);
  CHECK_THAT(to_full.output, Catch::Contains(full.string()) && Catch::Contains("No space left"));
  for (const auto& node : {null, full}) {
    struct stat s {};
    REQUIRE(lstat(node.c_str(), &s) == 0);
    CHECK(S_ISCHR(s.st_mode));
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("compress runs a stateful kind as one sender's successive calls, and every registered kind") {
  const auto dir = scratch();
  const std::vector<float> v = test_vector("gaussian", 200, 4);
  write_bytes(dir / "v.f32", raw(v));
  // Signum on a fixed vector: the momentum (1 − β^t)·x keeps x's signs, so every call sends sign(x).
  const CommandResult r =
      compress(R"(--compressor '{"kind": "signum", "momentum": 0.5}' --repeat 7 --json --input )" +
               (dir / "v.f32").string());
  REQUIRE(r.exit_code == 0);
  const auto report = nlohmann::json::parse(r.output);
  CHECK(report["stateful"] == true);
  CHECK(report["repeats"] == 7);
  CHECK(report["bits"].get<double>() == 200);
  double error = 0;
  for (float x : v) error += (x < 0 ? -1.0 - x : 1.0 - x) * (x < 0 ? -1.0 - x : 1.0 - x);
  CHECK(report["relative_squared_error"].get<double>() ==
        Approx(error / (l2_norm(v) * l2_norm(v))).epsilon(1e-9));
  const CommandResult text =
      compress(R"(--compressor '{"kind": "signum"}' --repeat 2 --input )" + (dir / "v.f32").string());
  CHECK(text.output.find("state carried over") != std::string::npos);
  // Every example of every kind runs (compose's examples need d >= 12).
  for (const keys::Kind* kind : compression::compressors().kinds()) {
    for (const nlohmann::json& example : kind->examples) {
      INFO(example.dump());
      const CommandResult one =
          compress("--compressor '" + example.dump() + "' --json --input " + (dir / "v.f32").string());
      CHECK(one.exit_code == 0);
      // The report says what the kind itself says: a fresh sender state or none.
      const bool stateful = compression::make_compressor(example.dump())->make_state(v.size()) != nullptr;
      CHECK(nlohmann::json::parse(one.output)["stateful"] == stateful);
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("compress reports the quantizers' entropy floor and carries a stateful kind's state over repeats") {
  const auto dir = scratch();
  const std::vector<float> v = test_vector("gaussian", 4096, 5);
  write_bytes(dir / "g.f32", raw(v));
  const auto report = [&](const std::string& compressor, int repeat) {
    const CommandResult r = compress("--compressor '" + compressor + "' --repeat " + std::to_string(repeat) +
                                     " --json --input " + (dir / "g.f32").string());
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.output);
  };
  // The floor is below every coding of the same symbols; fixed width is 6 bits plus 32 per 512.
  const auto fixed = report(R"({"kind": "qsgd", "levels": 16, "bucket": 512, "coding": "fixed"})", 1);
  const auto elias = report(R"({"kind": "qsgd", "levels": 16, "bucket": 512})", 1);
  CHECK(fixed["bits_per_coordinate"].get<double>() == 6 + 32.0 / 512);
  CHECK(fixed["entropy_bits_per_coordinate"] == elias["entropy_bits_per_coordinate"]);
  CHECK(elias["entropy_bits_per_coordinate"].get<double>() < elias["bits_per_coordinate"].get<double>());
  CHECK(!report(R"({"kind": "topk", "k": 10})", 1).contains("entropy_bits_per_coordinate"));
  // PowerSGD on one 64 × 64 matrix: warm-started iterations lower the mean error over the repeats.
  const std::string powersgd = R"({"kind": "powersgd", "rank": 4, "rows": 64})";
  const double one = report(powersgd, 1)["relative_squared_error"].get<double>();
  const double twenty = report(powersgd, 20)["relative_squared_error"].get<double>();
  INFO("one message " << one << ", mean of twenty " << twenty);
  CHECK(twenty < one);
  CHECK(report(powersgd, 1)["bits"].get<double>() == 32.0 * (64 + 64) * 4);
}
