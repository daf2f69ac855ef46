#pragma once
// Spellings of a method that its issue named, kept working beside the form the code has (docs/protocols.md,
// "One method, two spellings"). A kind registers, from its own file, how to recognise its other spelling in
// an algorithm object and the form it stands for; scenario resolution rewrites the scenario with it before
// anything is read, so both spellings give the same run byte for byte and resolved.json shows what ran.
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace sgdsim::protocols {

// The algorithm object `given` (at $.algorithm of the file `origin`) in the form that runs, or nullopt when
// it is not this spelling. Throws InputError naming the place for a combination the method does not support.
using Spelling =
    std::function<std::optional<nlohmann::json>(const nlohmann::json& given, const std::string& origin)>;
bool add_spelling(Spelling spelling);

// `algorithm` as the first spelling that recognises it rewrites it; unchanged when none does.
nlohmann::json spell_out(const nlohmann::json& algorithm, const std::string& origin);

// For spellings: the kind of a family object given as {"kind": ...} or as its shorthand string (empty when it
// has neither: the reading Spec then says what is wrong), and an InputError at `path` ("$.algorithm.memory").
std::string kind_of(const nlohmann::json& value);
[[noreturn]] void refuse(const std::string& origin, const std::string& path, const std::string& message);

}  // namespace sgdsim::protocols
