#pragma once
// Key declarations -> JSON Schema (draft-07) and a Markdown key reference. `sgdsim schema` and `sgdsim docs`
// print these; the committed scenarios/scenario.schema.json and docs/scenario.md are their output.
#include <string>

#include <nlohmann/json.hpp>

#include "common/keys.hpp"

namespace sgdsim::keys {

nlohmann::json json_schema(const Object& root, const std::string& title);

// The whole reference: the root object, every nested object and every family with all its kinds.
std::string key_reference(const Object& root, const std::string& title, const std::string& introduction);
// One family (all kinds) or one kind of it.
std::string family_reference(const Family& family, const std::string& kind = {});

}  // namespace sgdsim::keys
