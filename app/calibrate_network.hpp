#pragma once
// `sgdsim calibrate --network`: the flow model's factors fitted to transfers over a real shaped link
// (docs/validation.md, "Calibration").
#include <cstddef>
#include <string>
#include <vector>

#include "emulation/fabric.hpp"

namespace sgdsim::app {

struct NetworkCalibrateOptions {
  std::string output;  // empty: stdout
  std::vector<std::string> sizes{"1000",   "4000",    "16000",   "64000",
                                 "256000", "1000000", "4000000", "10000000"};
  std::vector<std::string> rates{"10Mbps", "100Mbps", "1Gbps"};
  std::size_t repeats = 5;
  std::string qdisc = emulation::qdisc_kinds.front();
};

void calibrate_network(const NetworkCalibrateOptions& options);

}  // namespace sgdsim::app
