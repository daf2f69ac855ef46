#pragma once
// Publishing a complete output folder atomically: `sgdsim run` writes into a temporary sibling
// "DIR.tmp-HOST-PID" and only a finished folder takes the name DIR, so readers (sweeps, plots, a user) see
// either no folder, the old one, or the complete new one, whatever happens in between (kill -9 included).
//  * The target is checked before any work: an empty name, ".", "..", a name ending in "/." or "/..", a path
//    through a regular file, an existing file, symlink or other non-folder, an existing folder without
//    `force`, or (with `force`) a folder that is not an earlier run's output are InputErrors. An earlier
//    run's output is an empty folder or one that holds nothing but run_output_files() (and at least
//    resolved.json or summary.json): replacing anything else would delete someone's other work.
//  * Replacing (with `force`) swaps the two folders in one step with renameat2(RENAME_EXCHANGE) where the
//  file
//    system supports it, then removes the old one; elsewhere it falls back to two renames.
//  * Temporary folders of processes that are gone (same host, dead PID) are removed.
#include <filesystem>
#include <string>
#include <vector>

namespace sgdsim::scenarios {

class OutputFolder {
 public:
  // Validates `directory` (see check), removes stale temporary siblings and creates the temporary folder.
  OutputFolder(const std::string& directory, bool force);
  // The validation alone, without touching the file system; returns the absolute target path.
  static std::filesystem::path check(const std::string& directory, bool force);
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;
  // Removes the temporary folder unless it was published.
  ~OutputFolder();

  const std::filesystem::path& temporary() const { return temporary_; }
  const std::filesystem::path& target() const { return target_; }

  // Moves the temporary folder to the target (replacing the old one when `force` was given). When the target
  // appeared meanwhile and may not be replaced, the results go to "DIR.kept-HOST-PID" (an InputError says
  // so).
  void publish();

 private:
  std::string argument_;
  std::filesystem::path target_;
  std::filesystem::path temporary_;
  bool force_ = false;
  bool published_ = false;
};

// Writes one file of a run's temporary output folder (binary, whole); a failed write is an error.
void write_run_file(const std::filesystem::path& path, const std::string& text);

// Everything `sgdsim run` and `sgdsim retime` write into an output folder.
const std::vector<std::string>& run_output_files();

// Removes "NAME.tmp-HOST-PID" (and "NAME.old-HOST-PID") siblings of `target` left by dead processes of this
// host. Returns how many it removed.
std::size_t remove_stale_temporaries(const std::filesystem::path& target);

}  // namespace sgdsim::scenarios
