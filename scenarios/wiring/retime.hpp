#pragma once
// `sgdsim retime RUN_DIR -o OUT [--set KEY=VALUE ...]`: a recorded run (RUN_DIR/schedule.bin) under other
// timing settings, without computing its learning again (docs/workflow.md, "Learn once, time many").
#include <string>
#include <vector>

namespace sgdsim::scenarios {

// Writes OUT/{trace.csv, summary.json, resolved.json, links.csv} as `sgdsim run` would with the recorded
// scenario and `overrides` applied, atomically. Throws InputError (nothing written) when RUN_DIR has no valid
// schedule, when an override names a key that is not timing-only, or when the run cannot be re-timed.
void retime_to_directory(const std::string& run_directory, const std::vector<std::string>& overrides,
                         const std::string& directory, bool force);

// One line about RUN_DIR's schedule: nodes, trace rows, prices, operations and bytes (per operation).
std::string describe_schedule(const std::string& run_directory);

}  // namespace sgdsim::scenarios
