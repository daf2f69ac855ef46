#pragma once
// Starting and awaiting child processes: the sweep's runs, gnuplot, and the tests' one-engine-per-process
// children all go through here, so that fork/exec/wait details (EINTR, output capture, dying with the parent)
// are written once.
#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace sgdsim::process {

enum class Output {
  inherit,  // the child writes to our stdout/stderr
  capture,  // stdout and stderr go to a pipe that wait() reads
  file,     // stdout and stderr go to Options::log (truncated)
  channel,  // fork_call only: the body gets a pipe of its own that wait() reads; stdout/stderr inherited
};

struct Options {
  Output output = Output::inherit;
  std::filesystem::path log;        // with Output::file
  std::filesystem::path directory;  // run there (empty: here)
  bool null_stdin = false;          // stdin from /dev/null
  bool die_with_parent = false;  // SIGKILL the child when this process dies (a killed sweep leaves nothing)
};

struct Child {
  pid_t pid = -1;
  int output = -1;  // read end of the capture pipe, or -1
};

// How a child ended.
struct Exit {
  int code = -1;       // exit code, or -1 when killed by a signal
  int signal = 0;      // the signal that killed it, or 0
  std::string output;  // what came through the pipe (Output::capture, Output::channel)
  bool ok() const { return code == 0; }
  static Exit of(int wait_status);
};

// Starts `arguments[0]` (looked up in PATH) with the arguments. Throws std::runtime_error when fork fails; a
// program that cannot be started exits 127 with a message on its stderr.
Child spawn(const std::vector<std::string>& arguments, const Options& options = {});
// Runs `body` in a forked child, whose exit code is body's return value; `body` gets the write end of the
// pipe (Output::capture or Output::channel) or -1.
Child fork_call(const std::function<int(int output)>& body, const Options& options = {});
// Reads the captured output to its end, then waits for the child (retrying on EINTR).
Exit wait(Child& child);

}  // namespace sgdsim::process
