#pragma once
// The sweep file: a base scenario, a grid over dotted scenario paths, optional explicit points, and seeds.
//
//   {
//     "name": "bandwidth-study",
//     "base": "ring16.json",                        // a path (relative to the sweep file) or an inline
//     scenario "grid": {
//       "network.link.bandwidth": ["10Mbps", "1Gbps"],
//       "algorithm": { "labels": ["dpsgd", "choco"], "values": [ {...}, {...} ] }   // labelled values
//     },
//     "points": [ { "label": "sparq-top1%", "set": { "algorithm.kind": "sparq", ... } } ],
//     "seeds": [1, 2, 3]
//   }
//
// The points of the sweep are points x grid x seeds (an absent `points` counts as one empty point). The file
// is read with Spec, so unknown keys are errors that name the file and the JSON path.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/keys.hpp"

namespace sgdsim::analysis {

using nlohmann::json;

struct GridAxis {
  std::string path;                 // dotted scenario path, e.g. "network.link.bandwidth"
  std::vector<json> values;         // whole objects allowed
  std::vector<std::string> labels;  // empty, or one per value
};

struct ExplicitPoint {
  std::string label;  // may be empty: then derived from `set`
  json set;           // object: dotted path -> value
};

struct Sweep {
  std::string file;  // the sweep file, for messages
  std::string name;
  json base;                   // the base scenario (an object)
  std::string base_dir;        // relative paths inside `base` resolve against this folder
  std::string sweep_dir;       // relative paths in grid values and points resolve against this one
  std::vector<GridAxis> grid;  // in path order
  std::vector<ExplicitPoint> points;
  std::vector<std::int64_t> seeds;
};

// Reads and validates a sweep file; a relative `base` path is taken relative to the sweep file's folder.
Sweep load_sweep(const std::string& file);
// The same from parsed JSON; `file` names the origin in errors and anchors a relative `base` path.
// The declarations of a sweep file's keys.
const keys::Object& sweep_keys();
Sweep parse_sweep(const json& document, const std::string& file);

// Checks the syntax of a dotted path ("a.b.c": non-empty segments of letters, digits, '_' or '-').
bool valid_dotted_path(const std::string& path);

}  // namespace sgdsim::analysis
