// libFuzzer target: a sweep file (JSON with comments) through validation, expansion into points and the first
// points' scenarios. Only InputErrors may come out.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analysis/sweep_point.hpp"
#include "analysis/sweep_spec.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    using namespace sgdsim::analysis;
    const Sweep sweep = parse_sweep(sgdsim::parse_json_text(text, "fuzz/sweep.json"), "fuzz/sweep.json");
    const std::vector<SweepPoint> points = expand(sweep);
    for (std::size_t i = 0; i < points.size() && i < 4; ++i)
      point_scenario(sweep, points[i], "fuzz/out/points");
  } catch (const sgdsim::InputError&) {
  }
  return 0;
}
