#pragma once
// `sgdsim emulate RUN_DIR -o OUT`: a recorded run (RUN_DIR/schedule.bin) replayed over real TCP between
// Linux network namespaces, against the simulator's prediction of the same schedule (docs/validation.md).
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "emulation/comparison.hpp"
#include "emulation/fabric.hpp"

namespace sgdsim::scenarios {

struct EmulateOptions {
  std::string run_directory;
  std::string output;
  std::vector<std::string> overrides;  // timing-only keys for the prediction, e.g. network.model=tcp
  bool compute = true;                 // replay the charged work as waits (else both sides leave it out)
  std::string qdisc = emulation::qdisc_kinds.front();  // emulation/fabric.hpp
  bool force = false;
  // Adds the figure to the output folder (the app layer draws it) before the folder is published.
  std::function<void(const std::filesystem::path& folder, const std::vector<emulation::Interval>&)> draw;
};

// Writes OUT/{comparison.csv, validation.json, resolved.json} (and what `draw` adds), atomically, and returns
// validation.json's content. InputError (exit 2, nothing written) without root, `ip` or `tc`, for a run that
// cannot be re-timed, or for messages between nodes no link joins; emulation::Interrupted after SIGINT or
// SIGTERM. The namespaces it made are gone whenever it returns or throws.
nlohmann::json emulate_to_directory(const EmulateOptions& options);

}  // namespace sgdsim::scenarios
