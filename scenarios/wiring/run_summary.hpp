#pragma once
// The run's own part of summary.json (what was run, how it ended, what it cost the host), declared field by
// field like the observation layer's part (observation/outputs.hpp), and the whole summary put together.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "common/wall_clock.hpp"
#include "observation/outputs.hpp"

namespace sgdsim::scenarios {

// What the composition root knows about a run once it has ended.
struct RunRecord {
  std::string name;
  std::uint64_t seed = 0;
  std::string algorithm;
  std::size_t nodes = 0, edges = 0, dimension = 0;
  const Diverged* diverged = nullptr;  // null for a completed run
  // Host seconds: the whole simulate() call, solving f* before it, and the parts the clock measured.
  double wall_s = 0, optimum_s = 0;
  const WallClock* clock = nullptr;
  std::vector<std::string> warnings;  // settings that depart from a paper (printed on stderr too)
};

const std::vector<observation::Field<RunRecord>>& run_fields();

// Every summary.json path, the run's and the observation layer's, for documentation and tests.
std::vector<observation::FieldDoc> summary_field_docs();

// summary.json: the observation layer's part and the run's.
nlohmann::json summary(const RunRecord& run, const observation::Observed& observed);

}  // namespace sgdsim::scenarios
