#pragma once
// SimGrid's unit strings, parsed by SimGrid's own parser (xbt/parse_units.hpp), so that a string sgdsim
// accepts means to sgdsim exactly what it means to SimGrid. Bandwidth: "100Mbps" (bits/s), "10MBps"
// (bytes/s), "1KiBps"; result in bytes/s. Duration: "500us", "1ms", "2s", "1m", "1h"; result in seconds.
// Speed: "10Gf", "1gigaflops"; result in flop/s.
// No value for: strings SimGrid rejects ("1Kbps", "1 Mbps", "1Gflops"); strings without a unit (SimGrid reads
// them in a default unit but deprecates that: a plain number belongs in a JSON number); non-finite results
// ("infMbps"). Zero and negative values are returned: the callers decide what they allow.
#include <optional>
#include <string>

namespace sgdsim::units {

std::optional<double> bandwidth(const std::string& text);
std::optional<double> duration(const std::string& text);
std::optional<double> speed(const std::string& text);

}  // namespace sgdsim::units
