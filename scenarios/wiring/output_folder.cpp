#include "scenarios/wiring/output_folder.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "common/error.hpp"
#include "observation/schedule.hpp"

namespace sgdsim::scenarios {
namespace fs = std::filesystem;

const std::vector<std::string>& run_output_files() {
  static const std::vector<std::string> files = {"resolved.json", "trace.csv", "links.csv", "timeline.json",
                                                 "summary.json", observation::schedule_file_name,
                                                 // sgdsim retime's
                                                 "retimed.json",
                                                 // sgdsim emulate's
                                                 "comparison.csv", "validation.json", "comparison.png",
                                                 "comparison.gp", "comparison.dat"};
  return files;
}

namespace {

std::string host_name() {
  char host[256] = "host";
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = '\0';
  return host;
}

bool process_alive(long pid) {
  if (pid <= 0 || pid != static_cast<long>(static_cast<pid_t>(pid))) return true;  // not ours to judge
  return kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

// What an existing folder holds, measured against what a run writes.
struct Contents {
  bool empty = true;
  bool run_seen = false;             // resolved.json or summary.json, as a run writes them
  std::vector<std::string> foreign;  // everything a run does not write, sorted
};

Contents contents_of(const fs::path& folder) {
  const std::vector<std::string>& run_files = run_output_files();
  Contents contents;
  std::error_code error;
  fs::directory_iterator it(folder, error), end;
  for (; !error && it != end; it.increment(error)) {
    contents.empty = false;
    const std::string name = it->path().filename().string();
    std::error_code ignored;
    const bool owned = std::find(run_files.begin(), run_files.end(), name) != run_files.end() &&
                       it->symlink_status(ignored).type() == fs::file_type::regular;
    if (!owned) contents.foreign.push_back(name);
    if (owned && (name == "resolved.json" || name == "summary.json")) contents.run_seen = true;
  }
  if (error) contents.foreign.push_back("(unreadable: " + error.message() + ")");
  std::sort(contents.foreign.begin(), contents.foreign.end());
  return contents;
}

// Empty, or nothing but what a run writes: the folder may be replaced.
bool replaceable(const Contents& contents) {
  return contents.empty || (contents.run_seen && contents.foreign.empty());
}

std::string listing(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size() && i < 5; ++i) text += (i ? ", " : "") + names[i];
  if (names.size() > 5) text += " and " + std::to_string(names.size() - 5) + " more";
  return text;
}

[[noreturn]] void refuse(const std::string& argument, const std::string& why) {
  throw InputError("-o " + (argument.empty() ? std::string("\"\"") : argument) + ": " + why);
}

bool exchange(const fs::path& a, const fs::path& b) {
#ifdef RENAME_EXCHANGE
  if (renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0) return true;
#else
  (void)a, (void)b;
  errno = ENOSYS;
#endif
  return false;
}

}  // namespace

std::size_t remove_stale_temporaries(const fs::path& target) {
  const fs::path parent = target.parent_path();
  const std::string name = target.filename().string();
  const std::string host = host_name();
  std::size_t removed = 0;
  std::error_code error;
  fs::directory_iterator it(parent, error), end;
  for (; !error && it != end; it.increment(error)) {
    const std::string entry = it->path().filename().string();
    for (const char* kind : {".tmp-", ".old-"}) {
      const std::string prefix = name + kind + host + "-";
      if (entry.size() <= prefix.size() || entry.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string digits = entry.substr(prefix.size());
      if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
      if (process_alive(std::stol(digits))) continue;
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
      removed += !ignored;
    }
  }
  return removed;
}

fs::path OutputFolder::check(const std::string& directory, bool force) {
  if (directory.empty()) refuse(directory, "an empty output folder name");
  // "runs/x/" means the folder runs/x; "x/." or "." name a folder by a path that cannot be renamed.
  std::string trimmed = directory;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  const std::string last = fs::path(trimmed).filename().string();
  if (trimmed == "/" || last == "." || last == "..") {
    refuse(directory, "name the output folder itself (e.g. -o results/run1), not \".\", \"..\" or \"/\"");
  }
  const fs::path target = fs::absolute(trimmed).lexically_normal();

  // The first existing ancestor must be a folder: "file/sub" cannot be created.
  std::error_code error;
  for (fs::path ancestor = target.parent_path();; ancestor = ancestor.parent_path()) {
    const fs::file_status status = fs::status(ancestor, error);
    if (fs::exists(status)) {
      if (!fs::is_directory(status)) refuse(directory, ancestor.string() + " exists and is not a folder");
      break;
    }
    if (ancestor == ancestor.parent_path()) break;
  }

  const fs::file_status status = fs::symlink_status(target, error);
  if (fs::exists(status)) {
    if (fs::is_symlink(status)) refuse(directory, "exists and is a symbolic link; refusing to replace it");
    if (!fs::is_directory(status)) refuse(directory, "exists and is not a folder; refusing to replace it");
    if (!force) refuse(directory, "already exists (use --force to replace it)");
    const Contents contents = contents_of(target);
    if (!contents.empty && !contents.run_seen) {
      refuse(directory,
             "exists and does not look like the output of an earlier run (no resolved.json or "
             "summary.json); refusing to replace it, even with --force");
    }
    if (!replaceable(contents)) {
      refuse(directory, "exists and holds what a run does not write (" + listing(contents.foreign) +
                            "); replacing the folder would delete it: refusing, even with --force");
    }
  }
  return target;
}

OutputFolder::OutputFolder(const std::string& directory, bool force)
    : argument_(directory), target_(check(directory, force)), force_(force) {
  std::error_code error;
  fs::create_directories(target_.parent_path(), error);
  if (error) refuse(directory, "cannot create " + target_.parent_path().string() + ": " + error.message());
  remove_stale_temporaries(target_);
  temporary_ = target_.string() + ".tmp-" + host_name() + "-" + std::to_string(getpid());
  fs::remove_all(temporary_, error);
  if (!fs::create_directory(temporary_, error) || error) {
    refuse(directory, "cannot create " + temporary_.string() + ": " +
                          (error ? error.message() : std::string("it already exists")));
  }
}

OutputFolder::~OutputFolder() {
  if (published_ || temporary_.empty()) return;
  std::error_code ignored;
  fs::remove_all(temporary_, ignored);
}

void OutputFolder::publish() {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(target_, error);
  if (!fs::exists(status)) {
    // rename(2) onto a missing name; a folder that appeared meanwhile makes it fail (non-empty) or is
    // replaced only if empty.
    fs::rename(temporary_, target_, error);
    if (error)
      throw std::runtime_error("cannot rename " + temporary_.string() + " to " + target_.string() + ": " +
                               error.message());
    published_ = true;
    return;
  }
  if (!force_ || !fs::is_directory(status) || !replaceable(contents_of(target_))) {
    // Another run (or someone) took the name meanwhile. The results move out of the temporary name, which
    // a later run into DIR would remove as a dead process's leftover, to one that nothing removes.
    published_ = true;
    const fs::path kept = target_.string() + ".kept-" + host_name() + "-" + std::to_string(getpid());
    std::error_code moved;
    fs::rename(temporary_, kept, moved);
    throw InputError("-o " + argument_ +
                     ": appeared while the simulation ran; this run's results are kept in " +
                     (moved ? temporary_ : kept).string());
  }
  if (exchange(temporary_, target_)) {
    published_ = true;
    fs::remove_all(temporary_, error);  // now the old folder; a leftover is removed by a later run
    return;
  }
  // No RENAME_EXCHANGE here (old kernel, or a file system without it): two renames, with a short window in
  // which the target is missing. The old folder then sits at NAME.old-HOST-PID until removed.
  const fs::path old = target_.string() + ".old-" + host_name() + "-" + std::to_string(getpid());
  fs::rename(target_, old);
  fs::rename(temporary_, target_);
  published_ = true;
  fs::remove_all(old, error);
}

void write_run_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace sgdsim::scenarios
