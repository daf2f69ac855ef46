// A small stand-in for libFuzzer's driver, for targets that clang cannot build (the TorchScript loader: clang
// 14 does not compile against Debian's libtorch 1.13 headers, docs/testing.md). Built with GCC and its
// sanitizers, it drives the same LLVMFuzzerInitialize / LLVMFuzzerTestOneInput entry points:
//   fuzz_x FILE...                          runs each file once (replays a finding); no folder among them
//   fuzz_x [options] CORPUS [SEEDS...]      mutates inputs until a budget is spent
// Options use libFuzzer's spelling: -max_total_time=S (wall clock), -runs=N, -seed=N, -timeout=S (one input),
// -artifact_prefix=PATH, -max_len=N; libFuzzer's other options are accepted and ignored.
//
// Input k of a run is a function of the seed and the inputs before it: a run repeats on any machine.
// libtorch is not instrumented, so coverage cannot guide the mutations; the target's outcome does instead (it
// reports one through sgdsim_fuzz_outcome, e.g. the error message without its numbers): an input with an
// outcome not seen before joins the corpus, as an input reaching new edges does in libFuzzer.
//
// A supervisor process runs the loop in a child. When the child dies (a sanitizer report, a crash, an
// uncaught exception) or runs one input for longer than -timeout, the supervisor saves that input as
// crash-<hash> or timeout-<hash> and starts a new child, so one run reports every finding (libFuzzer's
// -fork=1 with -ignore_crashes=1 -ignore_timeouts=1). An input of the kept corpus that fails while the child
// loads the corpus is also dropped from it, so the next child gets past it. Status lines follow libFuzzer's
// ("#N ... corp: K/B"), with "outcomes: K" where libFuzzer prints coverage.
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <set>
#include <string>
#include <thread>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv);
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

using Bytes = std::vector<std::uint8_t>;
using Clock = std::chrono::steady_clock;

std::string last_outcome;

constexpr std::size_t kMaxLenCap = 1 << 20;

// What the supervisor must know of the child: how far it got, and the input it is running.
struct Progress {
  std::atomic<bool> loaded;  // the child has run its corpus and seeds
  std::atomic<std::uint64_t> execs;
  std::atomic<std::uint64_t> size;
  std::uint8_t data[kMaxLenCap];
};

struct Options {
  double max_total_time = 0;  // 0: no limit
  std::uint64_t runs = 0;     // 0: no limit
  std::uint64_t seed = 1;
  double timeout = 30;
  std::size_t max_len = 0;  // 0: the largest seed, at least 4096
  std::string artifact_prefix = "./";
  std::vector<std::string> folders;
};

// splitmix64: a small, well-mixed, portable stream.
class Stream {
 public:
  explicit Stream(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }

 private:
  std::uint64_t state_;
};

std::string fnv_hex(const Bytes& bytes) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint8_t b : bytes) h = (h ^ b) * 1099511628211ull;
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

Bytes read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::uint8_t* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

// One change to `b`, chosen from the usual byte-level mutations; `other` is another corpus entry to splice.
void mutate_once(Bytes& b, const Bytes& other, Stream& s) {
  static const std::uint64_t interesting[] = {
      0,      1,      2,          0x7f,       0x80,       0xff,  0x7fff,
      0x8000, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff, ~0ull, 0x7fffffffffffffffull};
  const auto position = [&] { return s.below(b.size()); };
  switch (b.empty() ? 5 : s.below(10)) {
    case 0:  // flip a bit
      b[position()] ^= static_cast<std::uint8_t>(1u << s.below(8));
      break;
    case 1:  // a random byte
      b[position()] = static_cast<std::uint8_t>(s.next());
      break;
    case 2: {  // an interesting little-endian word of 1, 2, 4 or 8 bytes
      const std::size_t width = std::size_t{1} << s.below(4);
      if (b.size() < width) break;
      const std::size_t at = s.below(b.size() - width + 1);
      const std::uint64_t v = interesting[s.below(std::size(interesting))];
      for (std::size_t k = 0; k < width; ++k) b[at + k] = static_cast<std::uint8_t>(v >> (8 * k));
      break;
    }
    case 3: {  // a small step up or down of a 1- or 4-byte little-endian word
      const std::size_t width = s.below(2) ? 4 : 1;
      if (b.size() < width) break;
      const std::size_t at = s.below(b.size() - width + 1);
      std::uint32_t v = 0;
      for (std::size_t k = 0; k < width; ++k) v |= std::uint32_t{b[at + k]} << (8 * k);
      v += static_cast<std::uint32_t>(static_cast<int>(s.below(33)) - 16);
      for (std::size_t k = 0; k < width; ++k) b[at + k] = static_cast<std::uint8_t>(v >> (8 * k));
      break;
    }
    case 4: {  // erase a range
      const std::size_t at = position();
      const std::size_t n = 1 + s.below(std::min<std::size_t>(b.size() - at, s.below(2) ? 16 : b.size()));
      b.erase(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + n));
      break;
    }
    case 5: {  // insert random bytes
      const std::size_t at = s.below(b.size() + 1);
      Bytes fresh(1 + s.below(16));
      for (auto& x : fresh) x = static_cast<std::uint8_t>(s.next());
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), fresh.begin(), fresh.end());
      break;
    }
    case 6: {  // copy a range over another place
      const std::size_t from = position(), to = position();
      const std::size_t n = 1 + s.below(std::min<std::size_t>({b.size() - from, b.size() - to, 64}));
      std::memmove(&b[to], &b[from], n);
      break;
    }
    case 7: {  // duplicate a range in place
      const std::size_t at = position();
      const std::size_t n = 1 + s.below(std::min<std::size_t>(b.size() - at, 64));
      const Bytes piece(b.begin() + static_cast<std::ptrdiff_t>(at),
                        b.begin() + static_cast<std::ptrdiff_t>(at + n));
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), piece.begin(), piece.end());
      break;
    }
    case 8:  // splice: this input's head, the other's tail
      if (!other.empty()) {
        const std::size_t cut = position(), from = s.below(other.size());
        b.resize(cut);
        b.insert(b.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
      }
      break;
    default:  // truncate
      b.resize(position());
      break;
  }
}

class Fuzzer {
 public:
  Fuzzer(const Options& options, Progress& progress, std::uint64_t generation)
      : options_(options), progress_(progress), stream_(options.seed * 0x100000001B3ull + generation) {}

  // The corpus folder, then the seed folders, each in name order (a run does not depend on readdir's order).
  void load() {
    for (const std::string& folder : options_.folders) {
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
      for (const auto& file : files) {
        Bytes input = read_bytes(file);
        if (input.size() > kMaxLenCap) input.resize(kMaxLenCap);
        max_len_ = std::max(max_len_, input.size());
        corpus_bytes_ += input.size();
        run(input);
        known_.insert(last_outcome);
        corpus_.push_back(std::move(input));
      }
    }
    if (options_.max_len) max_len_ = std::min(options_.max_len, kMaxLenCap);
    if (corpus_.empty()) corpus_.push_back(Bytes{});
    progress_.loaded.store(true);
    status("INITED");
  }

  void loop() {
    auto last_status = start_;
    std::uint64_t mine = 0;
    while (true) {
      const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
      if (options_.max_total_time > 0 && elapsed + start_offset >= options_.max_total_time) break;
      if (options_.runs > 0 && progress_.execs.load() >= options_.runs) break;
      Bytes input = corpus_[stream_.below(corpus_.size())];
      const Bytes& other = corpus_[stream_.below(corpus_.size())];
      const std::size_t changes = 1 + stream_.below(4);
      for (std::size_t k = 0; k < changes; ++k) mutate_once(input, other, stream_);
      if (input.size() > max_len_) input.resize(max_len_);
      run(input);
      if (known_.insert(last_outcome).second) {
        corpus_bytes_ += input.size();
        write_bytes(options_.folders.front() + "/" + fnv_hex(input), input.data(), input.size());
        corpus_.push_back(std::move(input));
        status("NEW   ");
      }
      ++mine;
      if ((mine & (mine - 1)) == 0 || Clock::now() - last_status > std::chrono::seconds(10)) {
        status("pulse ");
        last_status = Clock::now();
      }
    }
    status("DONE  ");
  }

  double start_offset = 0;  // wall-clock seconds used by earlier children

 private:
  void run(const Bytes& input) {
    progress_.size.store(0);
    // An empty input's data() may be null, which memcpy must not get even for zero bytes.
    if (!input.empty()) std::memcpy(progress_.data, input.data(), input.size());
    progress_.size.store(input.size());
    progress_.execs.fetch_add(1);
    last_outcome.clear();
    LLVMFuzzerTestOneInput(input.data(), input.size());
  }
  void status(const char* what) const {
    std::fprintf(stderr, "#%llu\t%s outcomes: %zu corp: %zu/%zub\n",
                 static_cast<unsigned long long>(progress_.execs.load()), what, known_.size(), corpus_.size(),
                 corpus_bytes_);
  }

  const Options& options_;
  Progress& progress_;
  Clock::time_point start_ = Clock::now();
  Stream stream_;
  std::vector<Bytes> corpus_;
  std::set<std::string> known_;
  std::size_t max_len_ = 4096;
  std::size_t corpus_bytes_ = 0;
};

void save_finding(const Options& options, const Progress& progress, const char* kind) {
  const Bytes input(progress.data, progress.data + progress.size.load());
  const std::string path = options.artifact_prefix + kind + "-" + fnv_hex(input);
  write_bytes(path, input.data(), input.size());
  std::fprintf(stderr, "==driver== %s: input saved to %s\n", kind, path.c_str());
}

// Removes the corpus file (the first folder) that holds the input the child was running; false if none does.
bool drop_from_corpus(const Options& options, const Progress& progress) {
  const Bytes input(progress.data, progress.data + progress.size.load());
  for (const auto& entry : std::filesystem::directory_iterator(options.folders.front())) {
    if (!entry.is_regular_file()) continue;
    Bytes kept = read_bytes(entry.path());
    if (kept.size() > kMaxLenCap) kept.resize(kMaxLenCap);
    if (kept != input) continue;
    std::filesystem::remove(entry.path());
    std::fprintf(stderr, "==driver== removed %s from the corpus; loading it again\n", entry.path().c_str());
    return true;
  }
  return false;
}

// Runs children until the budget is spent; each finding is saved and the next child goes on after it.
int supervise(const Options& options) {
  void* shared = mmap(nullptr, sizeof(Progress), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  auto* progress = new (shared) Progress;
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  for (std::uint64_t generation = 0;; ++generation) {
    if (options.max_total_time > 0 && elapsed() >= options.max_total_time) return 0;
    if (options.runs > 0 && progress->execs.load() >= options.runs) return 0;
    const double offset = elapsed();
    progress->loaded.store(false);
    const pid_t child = fork();
    if (child < 0) {
      std::perror("fork");
      return 1;
    }
    if (child == 0) {
      Fuzzer fuzzer(options, *progress, generation);
      fuzzer.start_offset = offset;
      fuzzer.load();
      fuzzer.loop();
      std::fflush(nullptr);
      _exit(0);
    }
    std::uint64_t seen = progress->execs.load();
    auto since = Clock::now();
    int status = 0;
    bool timed_out = false;
    while (true) {
      const pid_t done = waitpid(child, &status, WNOHANG);
      if (done == child) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const std::uint64_t now = progress->execs.load();
      if (now != seen) {
        seen = now;
        since = Clock::now();
      } else if (std::chrono::duration<double>(Clock::now() - since).count() > options.timeout) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
        save_finding(options, *progress, "timeout");
        timed_out = true;
        break;
      }
    }
    if (!timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
    if (!timed_out) save_finding(options, *progress, "crash");
    if (!progress->loaded.load()) {
      // An input of the kept corpus that fails while loading (a timeout on a loaded machine, or a finding of
      // an earlier run) is saved as a finding above; drop it from the corpus so the next child gets past it.
      // A failing seed cannot be dropped: the seeds are the repository's own files.
      if (drop_from_corpus(options, *progress)) continue;
      std::fprintf(stderr, "==driver== the seeds themselves fail: replay them one by one\n");
      return 1;
    }
  }
}

bool parse_option(const std::string& arg, Options& options) {
  const auto value = [&](const char* name) -> const char* {
    const std::size_t n = std::strlen(name);
    return arg.compare(0, n, name) == 0 ? arg.c_str() + n : nullptr;
  };
  if (const char* v = value("-max_total_time=")) {
    options.max_total_time = std::atof(v);
  } else if (const char* v = value("-runs=")) {
    options.runs = std::strtoull(v, nullptr, 10);
  } else if (const char* v = value("-seed=")) {
    options.seed = std::strtoull(v, nullptr, 10);
  } else if (const char* v = value("-timeout=")) {
    options.timeout = std::atof(v);
  } else if (const char* v = value("-max_len=")) {
    options.max_len = std::strtoull(v, nullptr, 10);
  } else if (const char* v = value("-artifact_prefix=")) {
    options.artifact_prefix = v;
  } else {
    return arg.size() > 1 && arg[0] == '-';  // another of libFuzzer's options: ignored
  }
  return true;
}

}  // namespace

// The target's outcome of the input being run (declared weak by targets that also build with libFuzzer).
extern "C" void sgdsim_fuzz_outcome(const char* outcome) {
  last_outcome = outcome;
}

int main(int argc, char** argv) {
  LLVMFuzzerInitialize(&argc, &argv);
  Options options;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (parse_option(arg, options)) continue;
    (std::filesystem::is_directory(arg) ? options.folders : files).push_back(arg);
  }
  if (!files.empty() && options.folders.empty()) {
    for (const std::string& file : files) {
      const Bytes input = read_bytes(file);
      std::fprintf(stderr, "Running: %s\n", file.c_str());
      LLVMFuzzerTestOneInput(input.data(), input.size());
      std::fprintf(stderr, "Executed %s (%s)\n", file.c_str(), last_outcome.c_str());
    }
    return 0;
  }
  if (options.folders.empty() || !files.empty()) {
    std::fprintf(stderr, "usage: %s [options] CORPUS_DIR [SEED_DIR...] | %s FILE...\n", argv[0], argv[0]);
    return 2;
  }
  return supervise(options);
}
