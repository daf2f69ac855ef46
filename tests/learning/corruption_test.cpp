// Randomly damaged input files: the readers must answer with an InputError (or accept the bytes), never crash
// or throw anything else. Runs under the sanitizer build too.
#include <catch2/catch.hpp>

#include "algorithms/learning/file_bytes.hpp"
#include "algorithms/learning/idx.hpp"
#include "algorithms/learning/libsvm.hpp"
#include "common/error.hpp"
#include "helpers.hpp"

using namespace sgdsim;
using namespace sgdsim::learning;
using namespace sgdsim::learning::testing;

namespace {

// Flips, overwrites, inserts or deletes a few bytes, or cuts the tail.
std::string mutate(std::string bytes, Rng& rng) {
  const int edits = 1 + static_cast<int>(rng.below(4));
  for (int e = 0; e < edits && !bytes.empty(); ++e) {
    const std::size_t at = rng.below(bytes.size());
    switch (rng.below(5)) {
      case 0:
        bytes[at] = static_cast<char>(bytes[at] ^ (1 << rng.below(8)));
        break;
      case 1:
        bytes[at] = static_cast<char>(rng.below(256));
        break;
      case 2:
        bytes.insert(at, 1, static_cast<char>(rng.below(256)));
        break;
      case 3:
        bytes.erase(at, 1);
        break;
      default:
        bytes.resize(at);
        break;
    }
  }
  return bytes;
}

// 0 = accepted, 1 = InputError; anything else fails the test.
template <typename F>
int outcome(F&& read) {
  try {
    read();
    return 0;
  } catch (const InputError&) {
    return 1;
  }
}

}  // namespace

TEST_CASE("damaged IDX bytes and gzip streams give InputErrors") {
  std::vector<unsigned char> values(5 * 4 * 3);
  for (std::size_t k = 0; k < values.size(); ++k) values[k] = static_cast<unsigned char>(k);
  const std::string idx = idx_bytes({5, 4, 3}, values);
  const std::string gz = gzip_bytes(idx);
  TempDir dir;
  Rng rng(77);
  int rejected = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const std::string raw = mutate(idx, rng);
    rejected += outcome([&] { parse_idx(std::vector<unsigned char>(raw.begin(), raw.end()), 3, "m.idx"); });
    const std::string path = dir.file("m.gz");
    write_plain(path, mutate(gz, rng));
    rejected += outcome([&] { read_idx_file(path, 3); });
  }
  CHECK(rejected > 300);  // most damage is detected (some byte flips inside pixel values are not detectable)
}

TEST_CASE("damaged LIBSVM text gives InputErrors with a line number, or parses") {
  const std::string text = "+1 1:0.5 3:-2 7:1e-3\n-1 2:0.25 4:8\n+1 1:1 2:2 3:3 # c\n-1 5:0.5\n";
  Rng rng(78);
  int rejected = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const std::string damaged = mutate(text, rng);
    try {
      const SparseSamples s = parse_libsvm(damaged, "m.txt");
      CHECK(s.row_start.size() == s.samples() + 1);
      CHECK(s.index.size() == s.value.size());
      const LabelCoding coding = label_coding({&s});
      const Dataset d = densify(s, s.dimension, coding, "m.txt");
      CHECK(d.samples() == s.samples());
    } catch (const InputError& e) {
      ++rejected;
      const std::string what = e.what();
      CHECK((what.find("m.txt: line ") != std::string::npos || what.find("no samples") != std::string::npos));
    }
  }
  CHECK(rejected > 100);
}
