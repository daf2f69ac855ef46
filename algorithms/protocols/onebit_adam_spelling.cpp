// data_parallel's optimizer "onebit_adam" (issue 32 §3's spelling) is the protocol onebit_adam.
#include <optional>
#include <string>

#include "algorithms/protocols/optimizer.hpp"
#include "algorithms/protocols/spellings.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

namespace {
using json = nlohmann::json;

// data_parallel with optimizer onebit_adam (issue 32's spelling) is the protocol onebit_adam: 1-bit Adam
// changes what is sent, so the code has it as a protocol. Its optimizer keys are read here, against their one
// declaration, so a bad value is reported where it was written.
json onebit_adam_protocol(const json& algorithm, const std::string& origin) {
  const std::string at = "$.algorithm";
  json scratch;
  Spec optimizer(algorithm.at("optimizer"), origin, at + ".optimizer", scratch, optimizer_keys());
  optimizer.string("kind");
  json protocol = {{"kind", "onebit_adam"}};
  for (const char* key : {"warmup_steps", "beta1", "beta2", "epsilon"}) {
    if (!optimizer.has(key)) continue;
    protocol[key] =
        key == std::string("warmup_steps") ? json(optimizer.integer(key)) : json(optimizer.number(key));
  }
  optimizer.finish();  // momentum, weight_decay, bias_correction, ... do not apply

  const std::string method = "with optimizer \"onebit_adam\" (the protocol \"onebit_adam\")";
  for (const auto& [key, value] : algorithm.items()) {
    const std::string path = at + "." + key;
    if (key == "kind" || key == "optimizer") continue;
    if (key == "compressor" || key == "memory") {
      if (kind_of(value) != "none")
        refuse(origin, path,
               method +
                   " the warm-up sends fp32 gradients and then 1-bit Adam compresses the momentum itself "
                   "(signs with error feedback); leave " +
                   key + " out or \"none\"");
      continue;
    }
    if (key == "aggregate") {
      if (value != "mean")
        refuse(origin, path, method + " the workers' gradients are averaged: \"mean\" only");
      continue;
    }
    if (key == "overlap") {
      if (value != false)
        refuse(origin, path, method + " the averaging does not overlap the backward pass; leave overlap out");
      continue;
    }
    if (key == "bucket_cap")
      refuse(origin, path, method + " there are no buckets (no overlap); leave it out");
    if (key == "collective" && kind_of(value) == "thc")
      refuse(origin, path,
             method +
                 " the warm-up averages fp32 gradients, which \"thc\" would quantize; use ring_allreduce "
                 "(the default), recursive_doubling, allgather or parameter_server");
    if (key != "steps" && key != "lr" && key != "collective")
      refuse(
          origin, path,
          "unknown key \"" + key + "\" for kind \"data_parallel\" " + method +
              "; known keys here: collective, kind, lr, optimizer, steps (and compressor, memory, aggregate "
              "and overlap at their defaults)");
    protocol[key] = value;
  }
  return protocol;
}
const bool registered_onebit_adam_spelling =
    add_spelling([](const json& given, const std::string& origin) -> std::optional<json> {
      if (kind_of(given) != "data_parallel" || !given.is_object() || !given.contains("optimizer") ||
          kind_of(given["optimizer"]) != "onebit_adam")
        return std::nullopt;
      return onebit_adam_protocol(given, origin);
    });

}  // namespace
}  // namespace sgdsim::protocols
