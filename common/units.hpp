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

// The shortest SimGrid string (at most 4 significant digits, an SI prefix) that reads back close to `value`:
// bandwidth_text(1.25e9) == "10Gbps" (bytes/s in, bits/s out), bytes_rate_text(1.25e9) == "1.25GBps",
// duration_text(0.0005) == "500us", speed_text(1e10) == "10Gf". Used to echo values in human units and to
// spell out the readings of a plain number.
std::string bandwidth_text(double bytes_per_second);
std::string bytes_rate_text(double bytes_per_second);
std::string duration_text(double seconds);
std::string speed_text(double flops);
// A number with an SI prefix and at most 4 significant digits: si_text(1.5e6) == "1.5M", si_text(2e-6, true)
// == "2u" (small prefixes only when `small` is true).
std::string si_text(double value, bool small = false);

}  // namespace sgdsim::units
