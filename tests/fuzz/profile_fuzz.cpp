// libFuzzer target: a device profile file (profiles/*.json: a CPU profile or an accelerator's roofline, with
// its codec prices) read as a scenario's "compute.profile" reads it, through a file. A profile whose figures
// are all usable, or an InputError, are the only acceptable outcomes.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "common/error.hpp"
#include "common/spec.hpp"
#include "memory_file.hpp"
#include "sim/config/device_profile.hpp"

namespace {
bool positive(double value) {
  return std::isfinite(value) && value > 0;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const sgdsim::fuzz::MemoryFile file(data, size);
  try {
    const sgdsim::sim::DeviceProfile profile =
        sgdsim::sim::read_device_profile(sgdsim::parse_json_file(file.path()), file.path());
    // Every figure a simulation divides by must be finite and above 0.
    if (!positive(profile.host_speed) || !positive(profile.memory_bandwidth)) std::abort();
    for (const auto& [configuration, price] : profile.configurations)
      if (!positive(price.speed.encode) || !positive(price.speed.decode)) std::abort();
    const auto& roofline = profile.roofline;
    if (roofline.active() &&
        (!positive(roofline.peak.value) || !positive(roofline.efficiency.value) ||
         roofline.efficiency.value > 1 || !positive(roofline.memory_bandwidth.value) ||
         !std::isfinite(roofline.launch_overhead.value) || roofline.launch_overhead.value < 0 ||
         !positive(roofline.bytes_per_value.value)))
      std::abort();
  } catch (const sgdsim::InputError&) {
  }
  return 0;
}
