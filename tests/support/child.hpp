#pragma once
// Running code in a forked child process, for tests that start a SimGrid engine (one engine per process).
// The child's return string comes back through a pipe; a child that crashes or throws fails the test.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>

namespace sgdsim::testing {

struct ChildResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string output;  // what the child's function returned
  std::string error;   // what.() of an exception in the child, if any
};

inline ChildResult in_child(const std::function<std::string()>& body) {
  int out[2];
  if (pipe(out) != 0) throw std::runtime_error("pipe failed");
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    close(out[0]);
    std::string text;
    int code = 0;
    try {
      text = "R" + body();
    } catch (const std::exception& e) {
      text = std::string("E") + e.what();
      code = 3;
    }
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = write(out[1], text.data() + done, text.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    close(out[1]);
    std::fflush(nullptr);
    _exit(code);
  }
  close(out[1]);
  std::string text;
  char buffer[65536];
  ssize_t n;
  while ((n = read(out[0], buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(n));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ChildResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (!text.empty() && text[0] == 'R') result.output = text.substr(1);
  if (!text.empty() && text[0] == 'E') result.error = text.substr(1);
  return result;
}

// Runs a shell command, capturing stdout and stderr together.
struct CommandResult {
  int exit_code = -1;
  std::string output;
};

inline CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed: " + command);
  char buffer[4096];
  std::size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) result.output.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace sgdsim::testing
