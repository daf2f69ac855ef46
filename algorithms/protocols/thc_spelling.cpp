// data_parallel's compressor "thc" (issue 32 §4's spelling) is the collective thc: THC's workers agree on a
// frame by communication and sum integers inside the all-reduce, which a compressor of one message cannot do.
#include <optional>
#include <string>

#include "algorithms/protocols/spellings.hpp"

namespace sgdsim::protocols {

namespace {
using json = nlohmann::json;

json thc_collective(const json& algorithm, const std::string& origin) {
  const std::string at = "$.algorithm";
  const std::string method =
      "with compressor \"thc\" (data_parallel then runs the collective \"thc\", THC's homomorphic ring "
      "all-reduce)";
  if (algorithm.contains("collective")) {
    const json& collective = algorithm["collective"];
    const std::string kind = kind_of(collective);
    if (kind != "ring_allreduce")
      refuse(origin, at + ".collective",
             method +
                 " the workers' integers are summed around a ring: leave the collective out or write "
                 "\"ring_allreduce\", not \"" +
                 kind + "\"");
    if (collective.is_object() && collective.size() > 1)
      refuse(origin, at + ".collective",
             method +
                 " THC lays its own ring (as ring_allreduce's default, \"embedded\"); ring_allreduce's "
                 "keys do not apply");
  }
  if (algorithm.contains("memory") && kind_of(algorithm["memory"]) != "none")
    refuse(origin, at + ".memory",
           method +
               " the memory is THC's own: write \"error_feedback\": true in the compressor, and leave "
               "memory out or \"none\"");
  if (algorithm.contains("aggregate") && algorithm["aggregate"] != "mean")
    refuse(origin, at + ".aggregate", method + " the integers sum to the mean: \"mean\" only");
  json spelled = algorithm;
  const json& compressor = algorithm["compressor"];
  spelled["collective"] = compressor.is_string() ? json{{"kind", compressor}} : compressor;
  spelled.erase("compressor");
  return spelled;
}

const bool registered_thc_spelling =
    add_spelling([](const json& given, const std::string& origin) -> std::optional<json> {
      if (kind_of(given) != "data_parallel" || !given.is_object() || !given.contains("compressor") ||
          kind_of(given["compressor"]) != "thc")
        return std::nullopt;
      // 1-bit Adam's spelling refuses any compressor, naming it (onebit_adam_spelling.cpp).
      if (given.contains("optimizer") && kind_of(given["optimizer"]) == "onebit_adam") return std::nullopt;
      return thc_collective(given, origin);
    });

}  // namespace
}  // namespace sgdsim::protocols
