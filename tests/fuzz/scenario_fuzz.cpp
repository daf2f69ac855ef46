// libFuzzer target: a scenario file (JSON with comments) through the public Scenario constructor, i.e. the
// whole validation including topology, data (synthetic, or files named by the scenario), partition, model and
// protocol. Only InputErrors may come out. Nothing is simulated (one SimGrid engine per process).
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.hpp"
#include "common/spec.hpp"
#include "scenarios/wiring/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const sgdsim::scenarios::Scenario scenario(sgdsim::parse_json_text(text, "fuzz.json"), "fuzz.json", ".");
  } catch (const sgdsim::InputError&) {
  }
  return 0;
}
