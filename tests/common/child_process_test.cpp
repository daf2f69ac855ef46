// The one helper that starts and awaits child processes (sweeps, gnuplot, tests).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/child_process.hpp"

using namespace sgdsim;
namespace fs = std::filesystem;

namespace {
process::Options with_output(process::Output output) {
  process::Options options;
  options.output = output;
  return options;
}
}  // namespace

TEST_CASE("a spawned program's exit code and captured stdout and stderr come back") {
  process::Child child = process::spawn({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"},
                                        with_output(process::Output::capture));
  const process::Exit exit = process::wait(child);
  CHECK(exit.code == 3);
  CHECK(exit.signal == 0);
  CHECK_FALSE(exit.ok());
  CHECK(exit.output == "out\nerr\n");
}

TEST_CASE("a child killed by a signal reports the signal, not an exit code") {
  process::Child child = process::spawn({"/bin/sh", "-c", "kill -9 $$"});
  const process::Exit exit = process::wait(child);
  CHECK(exit.code == -1);
  CHECK(exit.signal == 9);
}

TEST_CASE("a program that cannot be started exits 127 and says why") {
  process::Child child = process::spawn({"sgdsim-no-such-program"}, with_output(process::Output::capture));
  const process::Exit exit = process::wait(child);
  CHECK(exit.code == 127);
  CHECK(exit.output.find("cannot start sgdsim-no-such-program") != std::string::npos);
}

TEST_CASE("output can go to a log file, in a chosen folder, with stdin from /dev/null") {
  const fs::path folder = fs::temp_directory_path() / ("sgdsim-child-" + std::to_string(getpid()));
  fs::create_directories(folder);
  process::Options options = with_output(process::Output::file);
  options.log = folder / "log.txt";
  options.directory = folder;
  options.null_stdin = true;
  options.die_with_parent = true;
  process::Child child = process::spawn({"/bin/sh", "-c", "pwd; cat; echo done"}, options);
  CHECK(process::wait(child).ok());
  std::ifstream in(folder / "log.txt");
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == fs::canonical(folder).string() + "\ndone\n");
  fs::remove_all(folder);
}

TEST_CASE("a forked function returns its exit code and what it wrote to its channel") {
  process::Child child = process::fork_call(
      [](int channel) {
        const char text[] = "from the child";
        return write(channel, text, sizeof text - 1) == sizeof text - 1 ? 5 : 1;
      },
      with_output(process::Output::channel));
  const process::Exit exit = process::wait(child);
  CHECK(exit.code == 5);
  CHECK(exit.output == "from the child");
}
