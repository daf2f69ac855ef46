#pragma once
// Where a sweep keeps its files inside its output folder DIR:
//   DIR/points/<id>.json        the expanded scenario of each point (run it by hand with `sgdsim run`)
//   DIR/runs/<id>/              the run folder, written atomically by `sgdsim run`; complete once
//   summary.json exists DIR/runs/<id>.failed.json   the record of a failed attempt (exit code, signal, stderr
//   tail); removed on success DIR/logs/<id>.log           stdout and stderr of the last attempt DIR/index.csv
//   one row per point, rebuilt from runs/ on every invocation
// Everything the index needs lives under runs/, so copying the runs/ folders of several machines together and
// rebuilding the index gives the full study.
#include <filesystem>
#include <string>

namespace sgdsim::analysis {

struct SweepLayout {
  std::filesystem::path dir;

  std::filesystem::path runs() const { return dir / "runs"; }
  std::filesystem::path points() const { return dir / "points"; }
  std::filesystem::path logs() const { return dir / "logs"; }
  std::filesystem::path index() const { return dir / "index.csv"; }
  std::filesystem::path run_dir(const std::string& id) const { return runs() / id; }
  std::filesystem::path summary(const std::string& id) const { return runs() / id / "summary.json"; }
  std::filesystem::path resolved(const std::string& id) const { return runs() / id / "resolved.json"; }
  std::filesystem::path failure(const std::string& id) const { return runs() / (id + ".failed.json"); }
  std::filesystem::path point_file(const std::string& id) const { return points() / (id + ".json"); }
  std::filesystem::path log(const std::string& id) const { return logs() / (id + ".log"); }
};

}  // namespace sgdsim::analysis
