// What the rest of the program asks of a protocol kind, declared by the kind when it registers: its memory
// footprint, whether it depends on simulated time, whether it has an averaged-gradient estimator.
#include <catch2/catch.hpp>

#include "algorithms/protocols/collective.hpp"
#include "algorithms/protocols/footprint.hpp"
#include "algorithms/protocols/protocol.hpp"
#include "topologies/graph.hpp"

using namespace sgdsim;
using nlohmann::json;

TEST_CASE("every protocol kind declares how to build it and its vectors per node") {
  for (const std::string& kind : protocols::protocols().kind_names()) {
    INFO(kind);
    const protocols::ProtocolFactory& factory = protocols::protocols().factory(kind);
    CHECK(factory.build);
    REQUIRE(factory.vectors_per_node);
    // Read leniently before validation: any object, even a malformed one, gives an estimate.
    for (const json& algorithm : {json::object(), json{{"kind", kind}, {"verify_copies", "yes"}}})
      CHECK(factory.vectors_per_node(algorithm, 2.0) >= 2);
  }
  // The counts the memory estimate uses (a ring: mean degree 2).
  const auto vectors = [](const json& algorithm) {
    return protocols::protocols()
        .factory(algorithm["kind"].get<std::string>())
        .vectors_per_node(algorithm, 2);
  };
  CHECK(vectors({{"kind", "dpsgd"}}) == 4);
  CHECK(vectors({{"kind", "choco"}}) == 4);
  CHECK(vectors({{"kind", "sparq"}, {"verify_copies", true}}) == 6);
  CHECK(vectors({{"kind", "data_parallel"}}) == 5);
  CHECK(vectors({{"kind", "adpsgd"}}) == 5);
  const topology::Topology ring = topology::build_topology("ring", 8, topology::ring_edges(8), {1e6, 1e-3});
  const MemoryParts parts =
      protocols::memory_parts(*protocols::protocols().find("adpsgd"), {{"kind", "adpsgd"}}, ring, 1000);
  REQUIRE(parts.size() == 2);
  CHECK(parts[0].first == "node models and messages (8 nodes x 5 vectors x 1000 floats)");
  CHECK(parts[0].second == 8 * 5 * 1000 * sizeof(float));
}

TEST_CASE("AD-PSGD is time_dependent but synchronous gossip and the collectives are not") {
  CHECK(protocols::time_dependent({{"kind", "adpsgd"}}));
  for (const char* kind : {"dpsgd", "choco", "sparq"})
    CHECK_FALSE(protocols::time_dependent({{"kind", kind}}));
  // data_parallel depends on time if its collective does; every collective averages in node order.
  for (const std::string& collective : protocols::collectives().kind_names()) {
    INFO(collective);
    CHECK_FALSE(protocols::time_dependent({{"kind", "data_parallel"}, {"collective", collective}}));
    CHECK_FALSE(
        protocols::time_dependent({{"kind", "data_parallel"}, {"collective", {{"kind", collective}}}}));
  }
  CHECK(protocols::protocols().kind_names("time_dependent") == std::vector<std::string>{"adpsgd"});
  CHECK(protocols::collectives().kind_names("time_dependent").empty());
}

TEST_CASE("the averaged-gradient estimator is declared by data_parallel alone with its conditions") {
  for (const std::string& kind : protocols::protocols().kind_names())
    CHECK(static_cast<bool>(protocols::protocols().factory(kind).averaged_gradient) ==
          (kind == "data_parallel"));
  const auto& of = protocols::protocols().factory("data_parallel").averaged_gradient;
  const json compressor = {{"kind", "qsgd"}, {"levels", 4}};
  const json mean = {{"aggregate", "mean"}, {"memory", {{"kind", "none"}}}, {"compressor", compressor}};
  CHECK(of(mean).compressor == compressor);
  json feedback = mean;
  feedback["memory"] = {{"kind", "error_feedback"}};
  CHECK(of(feedback).compressor.is_null());
  CHECK(of(feedback).why_not.find("memory \"none\"") != std::string::npos);
}
