#pragma once
// docs/outputs.md and its JSON twin, printed from the output declarations (observation/outputs.hpp) by
// `sgdsim docs outputs [--json]`. The summary's fields come from every layer that fills a part of it, so the
// caller hands them in.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "observation/outputs.hpp"

namespace sgdsim::observation {

std::string outputs_reference(const std::vector<FieldDoc>& summary_fields);
nlohmann::ordered_json outputs_json(const std::vector<FieldDoc>& summary_fields);

}  // namespace sgdsim::observation
