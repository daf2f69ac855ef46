// `sgdsim run -o DIR`: the output path is checked before anything is simulated, a finished folder replaces
// the old one in one step (--force), temporary folders of dead runs are cleaned, and a regular file is never
// replaced.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "scenarios/wiring/output_folder.hpp"
#include "tests/support/runs.hpp"

using namespace sgdsim;
using sgdsim::scenarios::OutputFolder;
using namespace sgdsim::testing;
namespace fs = std::filesystem;

namespace {

// A scenario that simulates in well under a second.
const char* const tiny_scenario =
    R"({"seed": 1, "network": {"topology": {"kind": "ring", "nodes": 4}},
        "data": {"dataset": "synthetic", "kind": "logistic", "samples": 200, "features": 5},
        "model": {"kind": "logistic"}, "algorithm": {"kind": "dpsgd", "steps": 20, "lr": 0.1},
        "eval": {"every": 10}})";

struct Folder {
  fs::path dir = temporary_folder("output");
  fs::path scenario = dir / "s.json";
  Folder() { std::ofstream(scenario) << tiny_scenario; }
  ~Folder() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
  // Runs `sgdsim run s.json <arguments>` in `dir`.
  CommandResult run(const std::string& arguments) const {
    return run_command("cd '" + dir.string() + "' && '" + SGDSIM_BINARY + "' run -q s.json " + arguments);
  }
  std::vector<std::string> entries(const fs::path& folder) const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
};

std::string host() {
  char name[256] = "host";
  gethostname(name, sizeof name - 1);
  name[sizeof name - 1] = '\0';
  return name;
}

}  // namespace

TEST_CASE("bad output paths exit 2 with a clear message, simulate nothing and leave nothing") {
  Folder f;
  std::ofstream(f.dir / "file") << "precious";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"-o ''", "empty output folder name"},
      {"-o .", "name the output folder itself"},
      {"-o ..", "name the output folder itself"},
      {"-o v/.", "name the output folder itself"},
      {"-o v/..", "name the output folder itself"},
      {"-o file", "file: exists and is not a folder"},
      {"-o file --force", "refusing to replace it"},
      {"-o file/sub", "file exists and is not a folder"},
      {"-o file/sub/deeper", "file exists and is not a folder"},
  };
  for (const auto& [arguments, message] : cases) {
    INFO(arguments);
    const CommandResult result = f.run(arguments);
    INFO(result.output);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains("sgdsim: error:") && Catch::Contains(message));
    CHECK(f.entries(f.dir) == std::vector<std::string>{"file", "s.json"});
  }
  CHECK(read_text(f.dir / "file") == "precious");
}

TEST_CASE("a trailing slash names the same folder, and an existing folder needs --force") {
  Folder f;
  const CommandResult first = f.run("-o out/");
  INFO(first.output);
  REQUIRE(first.exit_code == 0);
  CHECK(f.entries(f.dir / "out") ==
        std::vector<std::string>{"links.csv", "resolved.json", "summary.json", "trace.csv"});
  const CommandResult again = f.run("-o out");
  CHECK(again.exit_code == 2);
  CHECK_THAT(again.output, Catch::Contains("already exists (use --force"));
  CHECK(f.entries(f.dir) == std::vector<std::string>{"out", "s.json"});
}

TEST_CASE("replacing with --force swaps in the complete new folder and leaves no sibling behind") {
  Folder f;
  REQUIRE(f.run("-o out").exit_code == 0);
  // A file an earlier run wrote (with --timeline) that this run does not write goes with the old folder.
  std::ofstream(f.dir / "out" / "timeline.json") << "from the old run";
  struct stat before {};
  REQUIRE(stat((f.dir / "out").c_str(), &before) == 0);
  const CommandResult result = f.run("-o out --force");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  CHECK(f.entries(f.dir / "out") ==
        std::vector<std::string>{"links.csv", "resolved.json", "summary.json", "trace.csv"});
  CHECK(f.entries(f.dir) == std::vector<std::string>{"out", "s.json"});
  struct stat after {};
  REQUIRE(stat((f.dir / "out").c_str(), &after) == 0);
  CHECK(after.st_ino != before.st_ino);  // a new folder took the name, not the old one rewritten
}

TEST_CASE(
    "with --force, a folder that is not an earlier run's output is refused, and so is a symbolic link") {
  Folder f;
  fs::create_directories(f.dir / "thesis");
  std::ofstream(f.dir / "thesis" / "chapter1.tex") << "precious";
  const CommandResult result = f.run("-o thesis --force");
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.output, Catch::Contains("does not look like the output of an earlier run"));
  CHECK(read_text(f.dir / "thesis" / "chapter1.tex") == "precious");
  fs::create_directory_symlink("thesis", f.dir / "link");
  const CommandResult link = f.run("-o link --force");
  CHECK(link.exit_code == 2);
  CHECK_THAT(link.output, Catch::Contains("symbolic link"));
  // An empty folder (made by hand for the results) may be used.
  fs::create_directories(f.dir / "empty");
  CHECK(f.run("-o empty --force").exit_code == 0);
  CHECK(fs::exists(f.dir / "empty" / "summary.json"));
}

TEST_CASE("with --force, a run folder that also holds other files or folders is kept, naming them") {
  Folder f;
  REQUIRE(f.run("-o out").exit_code == 0);
  std::ofstream(f.dir / "out" / "notes.txt") << "precious";
  fs::create_directories(f.dir / "out" / "analysis");
  const CommandResult result = f.run("-o out --force");
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.output, Catch::Contains("-o out: exists and holds what a run does not write (analysis, "
                                            "notes.txt)") &&
                                Catch::Contains("refusing, even with --force"));
  CHECK(read_text(f.dir / "out" / "notes.txt") == "precious");
  CHECK(f.entries(f.dir) == std::vector<std::string>{"out", "s.json"});  // nothing simulated, nothing left
  // A lone summary.json beside someone's files does not make a run folder either.
  fs::create_directories(f.dir / "work");
  std::ofstream(f.dir / "work" / "summary.json") << "{}";
  std::ofstream(f.dir / "work" / "draft.tex") << "precious";
  const CommandResult work = f.run("-o work --force");
  CHECK(work.exit_code == 2);
  CHECK_THAT(work.output, Catch::Contains("draft.tex"));
  CHECK(read_text(f.dir / "work" / "draft.tex") == "precious");
  // Once only what a run writes is left, --force replaces it.
  fs::remove(f.dir / "out" / "notes.txt");
  fs::remove(f.dir / "out" / "analysis");
  CHECK(f.run("-o out --force").exit_code == 0);
  // A recorded run's schedule is one of a run's files too.
  REQUIRE(f.run("-o recorded --record").exit_code == 0);
  REQUIRE(fs::exists(f.dir / "recorded" / "schedule.bin"));
  const CommandResult recorded = f.run("-o recorded --force");
  INFO(recorded.output);
  CHECK(recorded.exit_code == 0);
}

TEST_CASE("temporary folders of dead runs on this host are removed, live or foreign ones are kept") {
  Folder f;
  const std::string prefix = "out.tmp-" + host() + "-";
  // PIDs above the kernel's limit (at most 2^22) belong to no process.
  fs::create_directories(f.dir / (prefix + "999999999") / "half");
  fs::create_directories(f.dir / ("out.old-" + host() + "-999999998"));
  fs::create_directories(f.dir / (prefix + std::to_string(getpid())));    // alive: this test
  fs::create_directories(f.dir / "out.tmp-elsewhere.example-999999999");  // another host's: not ours to judge
  const CommandResult result = f.run("-o out");
  INFO(result.output);
  REQUIRE(result.exit_code == 0);
  std::vector<std::string> expected = {"out", prefix + std::to_string(getpid()),
                                       "out.tmp-elsewhere.example-999999999", "s.json"};
  std::sort(expected.begin(), expected.end());
  CHECK(f.entries(f.dir) == expected);
}

TEST_CASE(
    "a run that fails after the output folder was prepared leaves neither it nor its temporary sibling") {
  Folder f;
  // What run_to_directory does when simulating throws: the OutputFolder unwinds without publishing.
  {
    OutputFolder output((f.dir / "out").string(), false);
    CHECK(fs::is_directory(output.temporary()));
    CHECK(output.temporary().filename().string().rfind("out.tmp-" + host() + "-", 0) == 0);
  }
  CHECK(f.entries(f.dir) == std::vector<std::string>{"s.json"});
}

TEST_CASE("a scenario that is a FIFO is refused without blocking", "[fifo]") {
  Folder f;
  REQUIRE(mkfifo((f.dir / "pipe.json").c_str(), 0600) == 0);
  for (const char* command : {"run -q pipe.json -o out", "validate pipe.json", "topology pipe.json"}) {
    INFO(command);
    const CommandResult result =
        run_command("cd '" + f.dir.string() + "' && '" + SGDSIM_BINARY + "' " + command);
    CHECK(result.exit_code == 2);
    CHECK_THAT(result.output, Catch::Contains("pipe.json: is a FIFO"));
  }
  CHECK_FALSE(fs::exists(f.dir / "out"));
}

TEST_CASE("a run whose new folder appeared while it simulated keeps its results where nothing removes them") {
  Folder f;
  std::string message;
  fs::path kept;
  {
    OutputFolder output((f.dir / "out").string(), false);
    std::ofstream(output.temporary() / "summary.json") << "{\"mine\": true}";
    // Another run into the same new folder finishes first.
    fs::create_directories(f.dir / "out");
    std::ofstream(f.dir / "out" / "summary.json") << "{}";
    try {
      output.publish();
    } catch (const InputError& e) {
      message = e.what();
    }
    kept = fs::path(output.target().string() + ".kept-" + host() + "-" + std::to_string(getpid()));
  }
  CHECK_THAT(message, Catch::Contains("appeared while the simulation ran") &&
                          Catch::Contains("results are kept in " + kept.string()));
  CHECK(read_text(kept / "summary.json") == "{\"mine\": true}");
  CHECK(read_text(f.dir / "out" / "summary.json") == "{}");
  // A later run into the same folder removes dead runs' temporaries, not kept results.
  const fs::path dead_kept = f.dir / ("out.kept-" + host() + "-999999999");
  fs::create_directories(dead_kept);
  CHECK(f.run("-o out --force").exit_code == 0);
  CHECK(fs::exists(kept / "summary.json"));
  CHECK(fs::exists(dead_kept));
}
