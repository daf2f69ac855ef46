#pragma once
// The network calibration file (`sgdsim calibrate --network -o net.json`, docs/validation.md): its keys, its
// reader (errors name the file and the JSON path) and its writer. A scenario names it, or holds it inline,
// as network.calibration; resolved.json echoes the factors inline.
#include <string>

#include <nlohmann/json.hpp>

#include "common/keys.hpp"
#include "sim/network_calibration.hpp"

namespace sgdsim::sim {

const keys::Object& calibration_keys();

// Reads a calibration document at `path` ("" for a file's root) of `file`: segments ascending from 0 bytes,
// factors positive. `source` gets the document's own "source", if any.
NetworkCalibration read_calibration(const nlohmann::json& document, const std::string& file,
                                    const std::string& path, std::string* source = nullptr);

// The document read_calibration reads back: `source` (when not empty), the segments, and `fit` (when not
// null: how the factors were measured, kept for the record).
nlohmann::json calibration_json(const NetworkCalibration& calibration, const std::string& source,
                                const nlohmann::json& fit = nullptr);

}  // namespace sgdsim::sim
