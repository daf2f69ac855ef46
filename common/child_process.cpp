#include "common/child_process.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace sgdsim::process {
namespace {

// In the child, before anything else runs: where its output goes, its stdin, its folder. Returns the write
// end of the capture pipe, or -1.
int prepare_child(const Options& options, pid_t parent, int pipe_fds[2]) {
  if (options.die_with_parent) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before prctl took effect
  }
  int write_end = -1;
  if (options.output == Output::capture || options.output == Output::channel) {
    close(pipe_fds[0]);
    write_end = pipe_fds[1];
    if (options.output == Output::capture) {
      dup2(write_end, STDOUT_FILENO);
      dup2(write_end, STDERR_FILENO);
    }
  } else if (options.output == Output::file) {
    const int out = open(options.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out >= 0) {
      dup2(out, STDOUT_FILENO);
      dup2(out, STDERR_FILENO);
    }
  }
  if (options.null_stdin) {
    const int in = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in >= 0) dup2(in, STDIN_FILENO);
  }
  if (!options.directory.empty() && chdir(options.directory.c_str()) != 0) _exit(126);
  return write_end;
}

Child start(const Options& options, const std::function<void(int output)>& in_child) {
  int pipe_fds[2] = {-1, -1};
  const bool piped = options.output == Output::capture || options.output == Output::channel;
  if (piped && pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
  const pid_t parent = getpid();
  std::fflush(nullptr);  // or buffered output would be written twice
  const pid_t pid = fork();
  if (pid < 0) {
    const std::string why = std::strerror(errno);
    if (pipe_fds[0] >= 0) {
      close(pipe_fds[0]);
      close(pipe_fds[1]);
    }
    throw std::runtime_error("fork failed: " + why);
  }
  if (pid == 0) {
    in_child(prepare_child(options, parent, pipe_fds));
    _exit(127);
  }
  Child child{pid, -1};
  if (piped) {
    close(pipe_fds[1]);
    child.output = pipe_fds[0];
  }
  return child;
}

}  // namespace

Exit Exit::of(int wait_status) {
  Exit exit;
  if (WIFEXITED(wait_status)) exit.code = WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) exit.signal = WTERMSIG(wait_status);
  return exit;
}

Child spawn(const std::vector<std::string>& arguments, const Options& options) {
  if (arguments.empty()) throw std::logic_error("spawn: no program");
  std::vector<char*> argv;
  for (const auto& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  return start(options, [&](int) {
    execvp(argv[0], argv.data());
    const std::string message = "cannot start " + arguments[0] + ": " + std::strerror(errno) + "\n";
    if (write(STDERR_FILENO, message.data(), message.size()) < 0) _exit(127);
  });
}

Child fork_call(const std::function<int(int output)>& body, const Options& options) {
  return start(options, [&](int output) {
    const int code = body(output);
    std::fflush(nullptr);
    _exit(code);
  });
}

Exit wait(Child& child) {
  std::string output;
  if (child.output >= 0) {
    char buffer[65536];
    ssize_t n;
    while ((n = read(child.output, buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
      if (n > 0) output.append(buffer, static_cast<std::size_t>(n));
    }
    close(child.output);
    child.output = -1;
  }
  int status = 0;
  while (waitpid(child.pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waitpid failed: ") + std::strerror(errno));
  }
  Exit exit = Exit::of(status);
  exit.output = std::move(output);
  return exit;
}

}  // namespace sgdsim::process
