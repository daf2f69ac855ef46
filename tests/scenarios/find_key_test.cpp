// Tools learn a key's declaration from its dotted path, following the kinds a document chooses.
#include <catch2/catch.hpp>

#include "common/keys.hpp"
#include "scenarios/wiring/scenario.hpp"

using namespace sgdsim;
using nlohmann::json;

TEST_CASE("find_key follows objects, kinds and arrays to a key's declaration") {
  const keys::Object& root = scenarios::scenario_keys();
  const json document = json::parse(R"({
    "network": {"topology": {"kind": "torus", "dims": [2, 2]}, "overrides": [{"node": 1, "latency": "1ms"}]},
    "data": {"dataset": "synthetic", "partition": {"kind": "dirichlet", "alpha": 0.5}},
    "algorithm": {"kind": "choco", "compressor": {"kind": "qsgd"}, "lr": 0.1}
  })");
  auto type_of = [&](const char* path) {
    const keys::Key* key = keys::find_key(root, document, path);
    REQUIRE(key != nullptr);
    return key->type;
  };
  CHECK(type_of("network.link.bandwidth") == keys::Type::bandwidth);
  CHECK(type_of("network.topology.dims") == keys::Type::integers);
  CHECK(type_of("network.overrides.0.latency") == keys::Type::duration);
  CHECK(type_of("data.partition.alpha") == keys::Type::number);
  CHECK(type_of("data.noise") == keys::Type::number);                    // a key of the synthetic dataset
  CHECK(type_of("algorithm.compressor.levels") == keys::Type::integer);  // chosen by the compressor's kind
  CHECK(type_of("algorithm.lr.value") == keys::Type::number);            // through the lr shorthand
  CHECK(type_of("algorithm.consensus_step") == keys::Type::number);
  CHECK(keys::find_key(root, document, "algorithm.compressor.ratio") == nullptr);  // nuqsgd's, not qsgd's
  CHECK(keys::find_key(root, document, "network.topology.nodes") == nullptr);      // a ring's, not a torus's
  CHECK(keys::find_key(root, document, "network.link.bandwidth.x") == nullptr);
  CHECK(keys::find_key(root, document, "network.overrides.x.latency") == nullptr);
  CHECK(keys::find_key(root, document, "no.such.key") == nullptr);
}
