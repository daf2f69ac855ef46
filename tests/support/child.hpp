#pragma once
// Running code in a forked child process, for tests that start a SimGrid engine (one engine per process).
// The child's return string comes back through a pipe; a child that crashes or throws fails the test.
#include <unistd.h>

#include <functional>
#include <string>

#include "common/child_process.hpp"

namespace sgdsim::testing {

struct ChildResult {
  int exit_code = -1;  // -1 when killed by a signal
  std::string output;  // what the child's function returned
  std::string error;   // what.() of an exception in the child, if any
};

inline ChildResult in_child(const std::function<std::string()>& body) {
  process::Options options;
  options.output = process::Output::channel;
  process::Child child = process::fork_call(
      [&](int channel) {
        // The tag is prepended to a fresh string: assigning a one-character literal to a string that already
        // holds text draws a false -Wrestrict from GCC 12 (its bug 105329).
        std::string text;
        int code = 0;
        try {
          text = 'R' + body();
        } catch (const std::exception& e) {
          text = 'E' + std::string(e.what());
          code = 3;
        }
        std::size_t done = 0;
        while (done < text.size()) {
          const ssize_t n = write(channel, text.data() + done, text.size() - done);
          if (n <= 0) break;
          done += static_cast<std::size_t>(n);
        }
        return code;
      },
      options);
  const process::Exit exit = process::wait(child);
  ChildResult result;
  result.exit_code = exit.code;
  const std::string& text = exit.output;
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
  process::Options options;
  options.output = process::Output::capture;
  process::Child child = process::spawn({"/bin/sh", "-c", command}, options);
  process::Exit exit = process::wait(child);
  return {exit.code, std::move(exit.output)};
}

}  // namespace sgdsim::testing
