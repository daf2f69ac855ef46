#include "analysis/sweep_runner.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "common/child_process.hpp"
#include "common/error.hpp"
#include "common/keys.hpp"
#include "scenarios/wiring/scenario.hpp"

namespace sgdsim::analysis {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

struct Running {
  const SweepPoint* point;
  Clock::time_point start;
};

// The scenario without its name, so that renaming a sweep does not count as changing its points.
json without_name(json scenario) {
  scenario.erase("name");
  return scenario;
}

// The last `lines` lines of a log (at most `limit` characters), for failure records and progress lines.
std::string tail(const fs::path& file, std::size_t lines, std::size_t limit) {
  std::string text;
  if (!read_file(file, text)) return {};
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  // Walk back to just after the `lines`-th newline from the end (or to the start).
  std::size_t start = text.size();
  for (std::size_t found = 0; start > 0; --start) {
    if (text[start - 1] == '\n' && ++found == lines) break;
  }
  if (text.size() - start > limit) start = text.size() - limit;
  return text.substr(start);
}

std::string last_line(const std::string& text) {
  const auto newline = text.rfind('\n');
  return newline == std::string::npos ? text : text.substr(newline + 1);
}

// The ids a runs/ entry could be a leftover of: ids end in "-s<seed>-<12 hex digits>", and a leftover is
// named after the id (optionally with a leading dot, as temporary siblings often are) followed by a
// separator.
std::vector<std::string> candidate_ids(const std::string& name) {
  std::vector<std::string> candidates;
  const std::size_t first = !name.empty() && name.front() == '.' ? 1 : 0;
  for (std::size_t p = name.find("-s", first); p != std::string::npos; p = name.find("-s", p + 1)) {
    std::size_t q = p + 2;
    while (q < name.size() && std::isdigit(static_cast<unsigned char>(name[q]))) ++q;
    if (q == p + 2 || q >= name.size() || name[q] != '-') continue;
    std::size_t hex = 0;
    while (q + 1 + hex < name.size() && hex < 12 &&
           std::isxdigit(static_cast<unsigned char>(name[q + 1 + hex]))) {
      ++hex;
    }
    const std::size_t end = q + 1 + hex;
    if (hex != 12 || end == name.size() || std::isalnum(static_cast<unsigned char>(name[end]))) continue;
    candidates.push_back(name.substr(first, end - first));
  }
  return candidates;
}

pid_t start_child(const std::vector<std::string>& arguments, const fs::path& log) {
  process::Options options;
  options.output = process::Output::file;
  options.log = log;
  options.null_stdin = true;
  options.die_with_parent = true;
  return process::spawn(arguments, options).pid;
}

std::string clock_text(double seconds) {
  const long total = static_cast<long>(seconds);
  return fmt::format("{}:{:02}:{:02}", total / 3600, total / 60 % 60, total % 60);
}

}  // namespace

bool run_complete(const SweepLayout& layout, const std::string& id) {
  // A summary or resolved scenario cut short (or garbled) makes the run incomplete: the sweep retries it.
  for (const fs::path& file : {layout.summary(id), layout.resolved(id)}) {
    std::string text;
    if (!read_file(file, text)) return false;
    try {
      const json document = json::parse(text);
      if (!document.is_object()) return false;
      // final is null only for a run that diverged before its first row, which is complete too.
      if (file == layout.summary(id) &&
          !(document.contains("final") &&
            (document["final"].is_object() ||
             (document["final"].is_null() && document.value("status", "") == "diverged"))))
        return false;
    } catch (const json::exception&) {
      return false;
    }
  }
  return true;
}

// "$.a.b[2]" -> "a.b.2", the dotted form keys::find_key takes.
std::string dotted(const std::string& path) {
  std::string out;
  for (char c : path.substr(std::min<std::size_t>(path.size(), 2))) {
    if (c == '[')
      out += '.';
    else if (c != ']')
      out += c;
  }
  return out;
}

// True when `given` is the shorthand of the family object `resolved` ("lr": 0.1 for {"schedule": "constant",
// "value": 0.1, ...}; "partition": "iid" for {"kind": "iid"}), as the scenario's declarations define it.
bool shorthand_of(const json& given, const json& resolved, const json& root, const std::string& path) {
  const keys::Key* key = keys::find_key(scenarios::scenario_keys(), root, dotted(path));
  if (!key || key->type != keys::Type::variant || !key->family->shorthand()) return false;
  const keys::Shorthand& shorthand = *key->family->shorthand();
  const json kind = resolved.value(key->family->discriminator(), json());
  if (shorthand.key.empty()) return kind == given;
  return kind == shorthand.kind && resolved.value(shorthand.key, json()) == given;
}

std::optional<std::string> first_difference(const json& given, const json& resolved, const json& root,
                                            const std::string& path) {
  if (given.is_object()) {
    if (!resolved.is_object()) return path;
    for (auto it = given.begin(); it != given.end(); ++it) {
      if (path == "$" && it.key() == "name")
        continue;  // "<sweep name>/<id>": renaming a sweep changes nothing
      const std::string where = path + "." + it.key();
      if (!resolved.contains(it.key())) return where;
      if (auto difference = first_difference(*it, resolved[it.key()], root, where)) return difference;
    }
    return std::nullopt;
  }
  if (given.is_array()) {
    if (!resolved.is_array() || resolved.size() != given.size()) return path;
    for (std::size_t i = 0; i < given.size(); ++i) {
      if (auto difference =
              first_difference(given[i], resolved[i], root, path + "[" + std::to_string(i) + "]"))
        return difference;
    }
    return std::nullopt;
  }
  if (given == resolved) return std::nullopt;
  if (resolved.is_object() && shorthand_of(given, resolved, root, path)) return std::nullopt;
  return path;
}

void check_runs_current(const Sweep& sweep, const SweepLayout& layout,
                        const std::vector<SweepPoint>& points) {
  for (const auto& point : points) {
    if (!run_complete(layout, point.id)) continue;
    const json scenario = point_scenario(sweep, point, layout.points().string());
    std::string text;
    json resolved;
    if (read_file(layout.resolved(point.id), text)) resolved = json::parse(text, nullptr, false);
    if (auto difference = first_difference(scenario, resolved, resolved, "$")) {
      throw InputError(
          layout.resolved(point.id).string() + ": " + *difference +
          ": this completed run was made from a different scenario than the sweep now gives (did "
          "the base scenario change?); use a new output folder, or delete " +
          layout.run_dir(point.id).string() + " to rerun it");
    }
  }
}

void prepare_points(const Sweep& sweep, const SweepLayout& layout, const std::vector<SweepPoint>& points) {
  // Check every point before touching anything, so a changed base leaves DIR as it was.
  check_runs_current(sweep, layout, points);
  std::vector<std::string> texts;
  for (const auto& point : points) {
    const json scenario = point_scenario(sweep, point, layout.points().string());
    std::string existing;
    if (run_complete(layout, point.id) && read_file(layout.point_file(point.id), existing)) {
      // A point file that is not a scenario object (cut short, edited) is simply rewritten below; the run's
      // own resolved.json was checked above.
      const json previous = json::parse(existing, nullptr, false);
      if (previous.is_object() && without_name(previous) != without_name(scenario)) {
        throw InputError(
            layout.point_file(point.id).string() +
            ": this completed point was run from a different scenario than the sweep now gives (did "
            "the base scenario change?); use a new output folder, or delete " +
            layout.run_dir(point.id).string() + " to rerun it");
      }
    }
    texts.push_back(scenario.dump(2) + "\n");
  }
  fs::create_directories(layout.runs());
  fs::create_directories(layout.points());
  fs::create_directories(layout.logs());
  for (std::size_t i = 0; i < points.size(); ++i) {
    std::string existing;
    if (!read_file(layout.point_file(points[i].id), existing) || existing != texts[i]) {
      write_file_atomically(layout.point_file(points[i].id), texts[i]);
    }
  }

  std::map<std::string, const SweepPoint*> mine;
  for (const auto& point : points) mine[point.id] = &point;
  for (const auto& entry : fs::directory_iterator(layout.runs())) {
    const std::string name = entry.path().filename().string();
    if (auto it = mine.find(name); it != mine.end()) {
      // A run folder without summary.json is not something `sgdsim run` leaves; someone removed the summary
      // to force a rerun, or copied a partial folder.
      if (!run_complete(layout, name)) fs::remove_all(entry.path());
      continue;
    }
    // Only leftovers of this shard's points: other shards may be writing into the same runs/ right now.
    if (name.size() > 12 && name.compare(name.size() - 12, 12, ".failed.json") == 0) continue;
    for (const auto& id : candidate_ids(name)) {
      if (mine.count(id)) {
        fs::remove_all(entry.path());
        break;
      }
    }
  }
}

RunTally run_points(const SweepLayout& layout, const std::vector<SweepPoint>& points,
                    const RunnerOptions& options) {
  if (options.runner.empty()) throw std::logic_error("run_points: no runner");
  RunTally tally;
  std::deque<const SweepPoint*> queue;
  for (const auto& point : points) {
    if (run_complete(layout, point.id)) {
      ++tally.skipped;
      std::error_code ignored;
      fs::remove(layout.failure(point.id), ignored);
    } else {
      queue.push_back(&point);
    }
  }
  const std::size_t total = queue.size();
  const std::size_t jobs = std::max<std::size_t>(1, options.jobs);
  std::map<pid_t, Running> running;
  std::size_t finished = 0;
  const auto begin = Clock::now();
  FILE* out = options.progress;

  auto status_line = [&] {
    if (!options.terminal || !out) return;
    const double elapsed = std::chrono::duration<double>(Clock::now() - begin).count();
    std::fprintf(out, "\r\033[K  %zu/%zu done, %zu failed, %zu running, %s elapsed", finished, total,
                 tally.failed, running.size(), clock_text(elapsed).c_str());
    std::fflush(out);
  };
  auto report = [&](const std::string& line) {
    if (!out) return;
    if (options.terminal) std::fputs("\r\033[K", out);
    std::fputs(line.c_str(), out);
    std::fflush(out);
  };

  // How a point runs now: re-timed from its source, live with --record, or live; nullopt while its source
  // is still queued or running.
  std::set<std::string> waiting_sources;  // sources queued or running in this invocation
  if (options.retiming)
    for (const SweepPoint* point : queue)
      if (options.retiming->record.count(point->id)) waiting_sources.insert(point->id);
  const auto arguments_of = [&](const SweepPoint& point) -> std::optional<std::vector<std::string>> {
    std::vector<std::string> a = options.runner;
    const std::string out = layout.run_dir(point.id).string();
    if (options.retiming) {
      if (auto it = options.retiming->retimed.find(point.id); it != options.retiming->retimed.end()) {
        const std::string& source = it->second.source;
        if (waiting_sources.count(source)) return std::nullopt;
        if (run_complete(layout, source) && fs::exists(layout.run_dir(source) / "schedule.bin")) {
          a.insert(a.end(), {"retime", layout.run_dir(source).string(), "-o", out});
          for (const std::string& set : it->second.sets) a.insert(a.end(), {"--set", set});
          return a;
        }
      }
    }
    a.insert(a.end(), {"run", layout.point_file(point.id).string(), "-o", out, "--threads",
                       std::to_string(options.threads)});
    if (options.retiming && options.retiming->record.count(point.id)) a.push_back("--record");
    return a;
  };

  while (!queue.empty() || !running.empty()) {
    for (auto next = queue.begin(); next != queue.end() && running.size() < jobs;) {
      const std::optional<std::vector<std::string>> arguments = arguments_of(**next);
      if (!arguments) {
        ++next;  // its source first
        continue;
      }
      const SweepPoint* point = *next;
      next = queue.erase(next);
      const pid_t pid = start_child(*arguments, layout.log(point->id));
      running[pid] = {point, Clock::now()};
    }
    status_line();

    int status = 0;
    pid_t pid;
    if (options.terminal) {
      // Poll so the status line's clock keeps ticking.
      pid = waitpid(-1, &status, WNOHANG);
      if (pid == 0) {
        poll(nullptr, 0, 250);
        continue;
      }
    } else {
      pid = waitpid(-1, &status, 0);
    }
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waitpid failed: ") + std::strerror(errno));
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const SweepPoint& point = *it->second.point;
    const double seconds = std::chrono::duration<double>(Clock::now() - it->second.start).count();
    running.erase(it);
    ++finished;
    waiting_sources.erase(point.id);

    const process::Exit exit = process::Exit::of(status);
    const bool exited = !exit.signal;
    const int code = exit.code;
    const int signal = exit.signal;
    const std::string prefix =
        fmt::format("sweep: [{:>{}}/{}] ", finished, std::to_string(total).size(), total);
    const std::string who = point.label.empty() ? point.id : point.label;
    const std::string timing = fmt::format("{:.1f} s", seconds);
    if (run_complete(layout, point.id)) {
      ++tally.succeeded;
      std::error_code ignored;
      fs::remove(layout.failure(point.id), ignored);
      // Exit 3: complete, with a trace that stops where the model diverged; never retried.
      const bool diverged = exited && code == exit_diverged;
      report(std::string(prefix) + (diverged ? "diverged " : "ok      ") + who + " (seed " +
             std::to_string(point.seed) + ", " + timing + ") -> runs/" + point.id + "\n");
    } else {
      ++tally.failed;
      if (exited && code == exit_input_error) ++tally.invalid;
      const std::string stderr_tail = tail(layout.log(point.id), 20, 4000);
      const std::string why = signal      ? "killed by signal " + std::to_string(signal)
                              : code == 0 ? "exit 0 but no summary.json"
                                          : "exit " + std::to_string(code);
      json record = {{"id", point.id},
                     {"label", point.label},
                     {"seed", point.seed},
                     {"exit_code", exited ? json(code) : json()},
                     {"signal", signal ? json(signal) : json()},
                     {"reason", why},
                     {"log", "logs/" + point.id + ".log"},
                     {"stderr_tail", stderr_tail}};
      write_file_atomically(layout.failure(point.id), record.dump(2) + "\n");
      if (tally.first_error.empty()) tally.first_error = last_line(stderr_tail);
      if (exited && code == exit_input_error && tally.first_invalid.empty())
        tally.first_invalid = last_line(stderr_tail);
      report(std::string(prefix) + "FAILED  " + who + " (seed " + std::to_string(point.seed) + ", " + why +
             "): " + last_line(stderr_tail) + " -> runs/" + point.id + ".failed.json\n");
    }
  }
  if (options.terminal && out) {
    std::fputs("\r\033[K", out);
    std::fflush(out);
  }
  return tally;
}

}  // namespace sgdsim::analysis
