#pragma once
// Parsing of SimGrid's unit strings, so that sgdsim can compute with the same values SimGrid is given.
// Bandwidth: "100Mbps" (bits/s), "10MBps" (bytes/s), binary prefixes "KiBps" too; result in bytes/s.
// Duration: "500us", "1ms", "2s", "1m", "1h"; result in seconds. Speed: "10Gf" (flop/s); result in flop/s.
#include <optional>
#include <string>

namespace sgdsim::units {

std::optional<double> bandwidth(const std::string& text);
std::optional<double> duration(const std::string& text);
std::optional<double> speed(const std::string& text);

}  // namespace sgdsim::units
