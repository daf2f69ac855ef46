// The generated scenarios/scenario.schema.json (`sgdsim schema`) agrees with the loader, seen from outside by
// an independent validator (Python's jsonschema, Debian python3-jsonschema, through
// tests/scenarios/schema_check.py). Representative scenarios (every topology, algorithm, compressor, data
// set, model, schedule, partition, memory and collective) go through `sgdsim validate`; both the input and
// the resolved scenario (every default filled in) must satisfy the schema, the loader's defaults must be the
// schema's, every schema key must occur in some case, no object may accept an unknown key, and every choice
// the loader offers must be a schema enum. Keys of another kind (levels on topk, ...) and malformed scenarios
// whose fault is visible without the data must be rejected by both, except rules between keys of one object
// that the schema does not express (listed as such).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/learning/torch_plugin.hpp"
#include "common/error.hpp"
#include "common/keys.hpp"
#include "common/spec.hpp"
#include "tests/support/runs.hpp"

using namespace sgdsim::testing;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path source_dir = SGDSIM_SOURCE_DIR;
const fs::path schema_path = source_dir / "scenarios/scenario.schema.json";

// A temporary folder removed at the end of the test case.
struct Scratch {
  fs::path path;
  explicit Scratch(const std::string& label) : path(temporary_folder(label)) {}
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
};

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string quote(const fs::path& path) {
  // Appended piecewise: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
  std::string quoted = "'";
  quoted += path.string();
  quoted += "'";
  return quoted;
}

// Runs schema_check.py on a manifest; returns its report.
json check(const json& manifest, const fs::path& folder) {
  json full = manifest;
  full["schema"] = schema_path.string();
  write_text(folder / "manifest.json", full.dump());
  const CommandResult result =
      run_command("(python3 " + quote(source_dir / "tests/scenarios/schema_check.py") + " " +
                  quote(folder / "manifest.json") + " > " + quote(folder / "report.json") + ")");
  INFO("schema_check.py: " << result.output);
  REQUIRE(result.exit_code == 0);
  return json::parse(read_text(folder / "report.json"));
}

// A small valid scenario; each case edits it by JSON pointer.
json base() {
  return json::parse(R"({
    "network": {"topology": {"kind": "ring", "nodes": 4}},
    "data": {"dataset": "synthetic", "samples": 200, "features": 5},
    "model": {"kind": "logistic"},
    "algorithm": {"kind": "dpsgd", "steps": 10, "lr": 0.1}
  })");
}

json edit(json scenario, const std::vector<std::pair<std::string, json>>& changes) {
  for (const auto& [pointer, value] : changes) scenario[json::json_pointer(pointer)] = value;
  return scenario;
}

json gossip(const std::string& kind, const json& compressor, const json& extra = json::object()) {
  json algorithm = {
      {"kind", kind}, {"steps", 10}, {"lr", 0.1}, {"consensus_step", 0.5}, {"compressor", compressor}};
  algorithm.update(extra);
  return algorithm;
}

struct Case {
  std::string label;
  json scenario;
  // For an issue's spelling of a method (algorithms/protocols/spellings.hpp): the form it is rewritten
  // into, which its resolved form must be the defaults of.
  std::optional<json> spelled_out = std::nullopt;
};

std::vector<Case> representative_cases() {
  auto parse = [](const char* text) { return json::parse(text); };
  std::vector<Case> cases = {
      {"minimal", base()},
      {"root_keys", edit(base(), {{"/$schema", "../scenario.schema.json"},
                                  {"/name", "all-root-keys"},
                                  {"/seed", 7},
                                  {"/compute", parse(R"({"host_speed": "2.5gigaflops"})")},
                                  {"/eval", parse(R"({"every": 5, "train_subset": 50})")},
                                  {"/network/link", parse(R"({"bandwidth": "10MBps", "latency": 0})")},
                                  {"/network/model", "tcp"},
                                  {"/network/header_bytes", 40}})},
      {"calibration", edit(base(), {{"/network/calibration", parse(R"({"source": "a test", "segments": [
                                      {"from_bytes": 0, "latency_factor": 1, "bandwidth_factor": 0.6},
                                      {"from_bytes": 65536, "latency_factor": 2, "bandwidth_factor": 0.95}]})")}})},
      {"links", edit(base(), {{"/compute/host_speed", "5Gf"},
                              {"/network/link", parse(R"({"bandwidth": "100Mbps", "latency": "1ms"})")},
                              {"/network/heterogeneity", parse(R"({"bandwidth": 0.5, "latency": 0.3})")},
                              {"/network/overrides", parse(R"([{"edge": [0, 1], "bandwidth": "1Gbps"},
                                                      {"node": 2, "latency": "2ms"},
                                                      {"edge": [3, 0], "bandwidth": "1KiBps", "latency": "0s"}])")}})},
      {"compute_profile",
       edit(base(), {{"/compute", parse(R"({"profile": "profile.json", "memory_bandwidth": "5GBps",
                                           "codecs": {"qsgd": {"encode": 1e9, "decode": 2e9}, "sign": {"decode": 3e8}},
                                           "charge": {"mixing": false, "update": false}})")}})},
      {"torus2", edit(base(), {{"/network/topology", parse(R"({"kind": "torus", "dims": [3, 3]})")}})},
      {"torus3", edit(base(), {{"/network/topology", parse(R"({"kind": "torus", "dims": [2, 2, 2]})")}})},
      {"erdos_renyi",
       edit(base(), {{"/network/topology", parse(R"({"kind": "erdos_renyi", "nodes": 8, "p": 0.6})")}})},
      {"random_regular", edit(base(), {{"/network/topology",
                                        parse(R"({"kind": "random_regular", "nodes": 8, "degree": 3})")}})},
      {"complete", edit(base(), {{"/network/topology", parse(R"({"kind": "complete", "nodes": 5})")}})},
      {"complete_single",
       edit(base(), {{"/network/topology", parse(R"({"kind": "complete", "nodes": 1})")},
                     {"/algorithm", parse(R"({"kind": "data_parallel", "steps": 5, "lr": 0.1})")}})},
      {"star", edit(base(), {{"/network/topology", parse(R"({"kind": "star", "nodes": 5})")}})},
      {"hypercube", edit(base(), {{"/network/topology", parse(R"({"kind": "hypercube", "dim": 3})")}})},
      {"edges", edit(base(), {{"/network/topology", parse(R"({"kind": "edges", "path": "edges.txt"})")}})},
      {"edges_nodes",
       edit(base(), {{"/network/topology", parse(R"({"kind": "edges", "path": "edges.txt", "nodes": 5})")}})},
      {"dpsgd_uniform",
       edit(base(), {{"/algorithm/weights", "uniform"},
                     {"/algorithm/lr", parse(R"({"schedule": "constant", "value": 0.1})")}})},
      {"adpsgd_ef", edit(base(), {{"/algorithm", parse(R"({"kind": "adpsgd", "steps": 5, "lr": 0.1,
                                               "compressor": {"kind": "qsgd", "levels": 4},
                                               "memory": {"kind": "error_feedback"}})")}})},
      {"choco_qsgd",
       edit(base(), {{"/algorithm", gossip("choco", {{"kind", "qsgd"}},
                                           parse(R"({"order": "consensus_first", "verify_copies": true,
                                                     "weights": "metropolis",
                                                     "lr": {"schedule": "inverse_time", "value": 0.2, "t0": 50,
                                                            "warmup": 3}})"))}})},
      {"choco_qsgd_fixed",
       edit(base(), {{"/algorithm", gossip("choco", parse(R"({"kind": "qsgd", "levels": 4, "coding": "fixed",
                                                              "bucket": 0, "scale": "contractive"})"))}})},
      {"choco_qsgdinf",
       edit(base(), {{"/algorithm", gossip("choco", parse(R"({"kind": "qsgdinf", "elias": "gamma"})"))}})},
      {"choco_qsgdinf_code",
       edit(base(),
            {{"/algorithm", gossip("choco", parse(R"({"kind": "qsgdinf", "table": "code", "bits": 3})"))}})},
      {"choco_nuqsgd",
       edit(base(), {{"/algorithm", gossip("choco", parse(R"({"kind": "nuqsgd", "ratio": 0.6, "levels": 5,
                                                              "table": "paper"})"))}})},
      {"choco_nuqsgd_code",
       edit(base(),
            {{"/algorithm", gossip("choco", parse(R"({"kind": "nuqsgd", "table": "code", "bits": 3})"))}})},
      {"choco_qsgd_code",
       edit(base(), {{"/algorithm", gossip("choco", parse(R"({"kind": "qsgd", "table": "code", "bits": 2,
                                                              "coding": "fixed", "bucket": 2})"))}})},
      {"choco_topk",
       edit(base(), {{"/algorithm", gossip("choco", parse(R"({"kind": "topk", "k": 2})"),
                                           parse(R"({"lr": {"schedule": "step", "value": 0.1, "factor": 0.5,
                                                            "every": 5}})"))}})},
      {"choco_randk",
       edit(base(), {{"/algorithm",
                      gossip("choco", parse(R"({"kind": "randk", "fraction": 0.4, "elias": "gamma"})"))}})},
      {"choco_sign",
       edit(base(), {{"/algorithm", gossip("choco", parse(R"({"kind": "sign", "bucket": 2})"))}})},
      {"choco_none", edit(base(), {{"/algorithm", gossip("choco", parse(R"({"kind": "none"})"))}})},
      {"sparq_topk_qsgd",
       edit(base(),
            {{"/algorithm",
              gossip("sparq", parse(R"({"kind": "compose", "stages": [{"kind": "topk", "fraction": 0.5},
                                                                     {"kind": "qsgd", "levels": 4}]})"),
                     parse(R"({"trigger": {"schedule": "constant", "c0": 1}, "local_steps": 2,
                                       "silence": "free", "weights": "uniform", "verify_copies": true})"))}})},
      {"sparq_randk_sign",
       edit(base(),
            {{"/algorithm",
              gossip("sparq",
                     parse(R"({"kind": "compose", "stages": [{"kind": "randk", "k": 2, "elias": "gamma"},
                                                                     {"kind": "sign"}]})"),
                     parse(R"({"trigger": {"schedule": "poly", "c0": 2, "epsilon": 0.3}})"))}})},
      {"sparq_topk_nuqsgd_code",
       edit(base(), {{"/algorithm",
                      gossip("sparq", parse(R"({"kind": "compose", "stages": [{"kind": "topk", "k": 3},
                                       {"kind": "nuqsgd", "table": "code", "bits": 2, "scale": "contractive"}]})"),
                             parse(
                                 R"({"trigger": {"schedule": "step", "c0": 1, "increment": 0.5, "every": 4}})"))}})},
      {"sparq_topk_none",
       edit(base(),
            {{"/algorithm", gossip("sparq", parse(R"({"kind": "compose", "stages": [{"kind": "topk", "k": 3},
                                                                                          {"kind": "none"}]})"))}})},
      {"data_parallel_server",
       edit(base(), {{"/algorithm", parse(R"({"kind": "data_parallel", "steps": 5, "lr": 0.1,
                                              "collective": {"kind": "parameter_server", "server": 1,
                                                             "compressor": {"kind": "sign"}},
                                              "memory": "error_feedback",
                                              "compressor": {"kind": "qsgd", "levels": 2}})")}})},
      {"data_parallel_dgc",
       edit(base(), {{"/algorithm", parse(R"({"kind": "data_parallel", "steps": 5, "lr": 0.1,
                                              "memory": {"kind": "dgc", "momentum": 0.5, "clip": 2.0,
                                                         "masking": false},
                                              "compressor": {"kind": "dgc", "fraction": 0.1}})")}})},
      {"data_parallel_ef21",
       edit(base(),
            {{"/algorithm", parse(R"({"kind": "data_parallel", "steps": 5, "lr": 0.1, "memory": "ef21",
                                              "compressor": {"kind": "topk", "k": 2}})")}})},
      {"dsgt", edit(base(), {{"/algorithm", parse(R"({"kind": "dsgt", "steps": 5, "lr": 0.1,
                                                   "order": "combine_then_adapt", "weights": "uniform",
                                                   "optimizer": {"momentum": 0}})")}})},
      {"beer",
       edit(base(), {{"/algorithm", parse(R"({"kind": "beer", "steps": 5, "lr": 0.1, "weights": "uniform",
                                                   "consensus_step": 0.4, "optimizer": {"momentum": 0},
                                                   "compressor": {"kind": "topk", "k": 2}})")}})},
      {"diloco",
       edit(base(), {{"/algorithm", parse(R"({"kind": "diloco", "steps": 6, "lr": 0.1, "local_steps": 3,
                                              "outer_lr": 0.7, "outer_momentum": 0.9, "nesterov": false,
                                              "optimizer": {"momentum": 0.9}, "memory": "error_feedback",
                                              "collective": "ring_allreduce",
                                              "compressor": {"kind": "none"}})")}})},
      {"diloco_adamw",
       edit(base(), {{"/algorithm", parse(R"({"kind": "diloco", "steps": 6, "lr": 0.01, "local_steps": 3,
                                              "optimizer": {"kind": "adamw", "beta1": 0.8, "beta2": 0.95,
                                                            "epsilon": 1e-6, "bias_correction": false,
                                                            "weight_decay": 0.1}})")}})},
      {"onebit_adam",
       edit(base(),
            {{"/algorithm", parse(R"({"kind": "onebit_adam", "steps": 6, "lr": 0.01, "warmup_steps": 3,
                                              "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-6,
                                              "collective": "allgather"})")}})},
      {"data_parallel_thc",
       edit(base(), {{"/algorithm", parse(R"({"kind": "data_parallel", "steps": 5, "lr": 0.1,
                                              "collective": {"kind": "thc", "bits": 3, "overflow": 1e-3,
                                                             "rotation_seed": 5, "error_feedback": true}})")}})},
      {"powersgd",
       edit(base(), {{"/algorithm", parse(R"({"kind": "powersgd", "steps": 5, "lr": 0.1, "rank": 2,
                                              "error_feedback": false, "optimizer": {"momentum": 0.9},
                                              "collective": "allgather"})")}})},
      // Issue 32's spelling of the protocol onebit_adam (algorithms/protocols/spellings.hpp).
      {"data_parallel_onebit_adam",
       edit(base(), {{"/algorithm", parse(R"({"kind": "data_parallel", "steps": 6, "lr": 0.01,
                                              "optimizer": {"kind": "onebit_adam", "warmup_steps": 3,
                                                            "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-6},
                                              "collective": "allgather"})")}}),
       edit(base(), {{"/algorithm", parse(R"({"kind": "onebit_adam", "steps": 6, "lr": 0.01,
                                              "warmup_steps": 3, "beta1": 0.8, "beta2": 0.99,
                                              "epsilon": 1e-6, "collective": "allgather"})")}})},
      {"data_parallel_memory_none",
       edit(base(), {{"/algorithm", parse(R"({"kind": "data_parallel", "steps": 5, "lr": 0.1,
                                              "memory": {"kind": "none"}})")}})},
      {"data_parallel_server_defaults",
       edit(base(), {{"/algorithm", parse(R"({"kind": "data_parallel", "steps": 5, "lr": 0.1,
                                              "collective": "parameter_server"})")}})},
      {"data_parallel_allgather",
       edit(base(), {{"/algorithm", parse(R"({"kind": "data_parallel", "steps": 5, "lr": 0.1,
                                              "collective": "allgather",
                                              "compressor": {"kind": "qsgd", "scale": "contractive"}})")}})},
      {"data_parallel_ring_allreduce",
       edit(base(), {{"/algorithm", parse(R"({"kind": "data_parallel", "steps": 5, "lr": 0.1,
                                              "collective": "ring_allreduce", "compressor": {"kind": "none"}})")},
                     {"/network/mtu", 1538},
                     {"/network/header_bytes", 78}})},
      // Physical networks of switches, and the logical graph every gossip kind mixes over.
      {"dpsgd_switch_graph", edit(base(), {{"/network/topology", parse(R"({"kind": "switch", "nodes": 4})")},
                                           {"/algorithm/graph", parse(R"({"kind": "ring", "nodes": 4})")}})},
      {"adpsgd_graph", edit(base(), {{"/algorithm", parse(R"({"kind": "adpsgd", "steps": 5, "lr": 0.1,
                                                           "graph": {"kind": "complete", "nodes": 4}})")}})},
      {"choco_graph",
       edit(base(), {{"/algorithm", gossip("choco", {{"kind", "qsgd"}},
                                           parse(R"({"graph": {"kind": "star", "nodes": 4}})"))}})},
      {"sparq_graph",
       edit(base(), {{"/algorithm", gossip("sparq", {{"kind", "qsgd"}},
                                           parse(R"({"trigger": {"schedule": "constant", "c0": 1},
                                                     "graph": {"kind": "ring", "nodes": 4}})"))}})},
      {"dsgt_graph", edit(base(), {{"/algorithm", parse(R"({"kind": "dsgt", "steps": 5, "lr": 0.1,
                                                         "graph": {"kind": "ring", "nodes": 4}})")}})},
      {"beer_graph", edit(base(), {{"/algorithm", parse(R"({"kind": "beer", "steps": 5, "lr": 0.1,
                                                         "consensus_step": 0.4, "compressor": {"kind": "topk", "k": 2},
                                                         "graph": {"kind": "ring", "nodes": 4}})")}})},
      {"data_parallel_hierarchical_cluster",
       edit(base(), {{"/network/topology", parse(R"({"kind": "cluster", "hosts": 2, "gpus_per_host": 2,
                                                     "intra_link": {"bandwidth": "10Gbps", "latency": "2us"}})")},
                     {"/algorithm", parse(R"({"kind": "data_parallel", "steps": 5, "lr": 0.1,
                                              "collective": "hierarchical_allreduce"})")}})},
      {"data_parallel_hierarchical_cluster_fat_tree",
       edit(base(), {{"/network/topology", parse(R"({"kind": "cluster", "hosts": 2, "gpus_per_host": 2,
                                                     "intra_link": {"bandwidth": "10Gbps"},
                                                     "fat_tree": {"down": [1, 2], "up": [1, 1]}})")},
                     {"/algorithm", parse(R"({"kind": "data_parallel", "steps": 5, "lr": 0.1,
                                              "collective": "hierarchical_allreduce"})")}})},
      {"data_parallel_fat_tree",
       edit(base(), {{"/network/topology", parse(R"({"kind": "fat_tree", "down": [2, 2], "up": [1, 2]})")},
                     {"/algorithm", parse(R"({"kind": "data_parallel", "steps": 5, "lr": 0.1,
                                              "collective": "ring_allreduce"})")}})},
      {"data_parallel_recursive_doubling",
       edit(base(), {{"/algorithm", parse(R"({"kind": "data_parallel", "steps": 5, "lr": 0.1,
                                              "collective": {"kind": "recursive_doubling"}})")}})},
      {"synthetic_linear",
       edit(base(),
            {{"/data", parse(R"({"dataset": "synthetic", "kind": "linear", "samples": 100, "features": 3,
                                         "noise": 0.5, "test_samples": 0, "partition": "label_sorted",
                                         "batch_size": 8})")},
             {"/model", parse(R"({"kind": "linear", "l2": 0.01})")}})},
      {"softmax_dirichlet",
       edit(base(), {{"/data/partition", parse(R"({"kind": "dirichlet", "alpha": 0.5})")},
                     {"/model", parse(R"({"kind": "softmax"})")}})},
      {"mlp_hidden", edit(base(), {{"/data/partition", parse(R"({"kind": "iid"})")},
                                   {"/model", parse(R"({"kind": "mlp", "hidden": [8, 4]})")}})},
      {"mlp_default", edit(base(), {{"/data/partition", "iid"}, {"/model", parse(R"({"kind": "mlp"})")}})},
      {"libsvm_binary",
       edit(base(),
            {{"/data", parse(R"({"dataset": "libsvm", "path": "binary.svm", "test_path": "binary_test.svm",
                                         "features": 6, "partition": {"kind": "label_sorted"}})")},
             {"/eval/suboptimality", true}})},
      {"libsvm_multiclass",
       edit(base(), {{"/data", parse(R"({"dataset": "libsvm", "path": "multiclass.svm"})")},
                     {"/model", parse(R"({"kind": "logistic", "positive_class": 2, "l2": 0})")}})},
      {"libsvm_regression",
       edit(base(), {{"/data", parse(R"({"dataset": "libsvm", "path": "regression.svm"})")},
                     {"/model", parse(R"({"kind": "linear"})")}})},
      {"dynamics_profiles_and_background",
       edit(
           base(),
           {{"/network/dynamics",
             parse(
                 R"([{"edge": [0, 1], "bandwidth": {"kind": "steps", "steps": [[0, 1], [1, 0.5]], "period": "2s"}},
                        {"node": 2, "latency": {"kind": "trace", "file": "latency.trace", "period": "10s"}},
                        {"bandwidth": {"kind": "random", "mean_normal": "2s", "mean_episode": "100ms",
                                       "episode": "fixed", "value": 0.2}}])")},
            {"/network/background",
             parse(R"([{"from": 0, "to": 1, "fraction": 0.3}, {"from": 1, "to": 3, "rate": "1MBps"},
                                               {"from": 2, "to": 0, "size": 100000, "arrivals": 5}])")},
            {"/compute/speed_spread", parse(R"({"distribution": "lognormal", "spread": 0.2})")},
            {"/compute/stragglers", parse(R"([{"node": 3, "slowdown": 4},
                        {"profile": {"kind": "random", "mean_normal": "10s", "mean_episode": "1s", "value": 0.1}}])")}})},
      {"failures",
       edit(base(), {{"/network/failures", parse(R"([{"edge": [0, 1], "down": [[0.001, 0.002]]},
                                                     {"node": 2, "mttf": "1s", "mttr": "10ms"}])")},
                     {"/network/receive_timeout", "5ms"},
                     {"/compute/failures",
                      parse(R"([{"node": 1, "down": [[0.001, 0.003]]}, {"mttf": "100s", "mttr": "1s"}])")}})},
      {"fashion_mnist",
       edit(base(), {{"/data", parse(R"({"dataset": "fashion-mnist", "samples": 400, "test_samples": 100,
                                         "partition": {"kind": "dirichlet", "alpha": 1.0}})")},
                     {"/model", parse(R"({"kind": "softmax"})")}})},
  };
  // The image data sets (tiny files from write_support_files), the optimizer, augmentation and the multistep
  // schedule; the libtorch models when this build has them.
  cases.push_back(
      {"mnist_augment_optimizer",
       edit(base(), {{"/data", parse(R"({"dataset": "mnist", "path": "mnist", "samples": 8, "test_samples": 4,
                                         "augment": {"crop_padding": 2, "horizontal_flip": true}})")},
                     {"/model", parse(R"({"kind": "softmax"})")},
                     {"/algorithm", parse(R"({"kind": "dpsgd", "steps": 10,
                       "lr": {"schedule": "multistep", "value": 0.1, "factor": 0.1, "milestones": [5, 8]},
                       "optimizer": {"momentum": 0.9, "nesterov": true, "weight_decay": 1e-4,
                                     "decoupled": true}})")}})});
  cases.push_back({"cifar10", edit(base(), {{"/data", parse(R"({"dataset": "cifar10", "path": "cifar"})")},
                                            {"/model", parse(R"({"kind": "softmax"})")}})});
  cases.push_back(
      {"synthetic_images",
       edit(base(), {{"/data", parse(R"({"dataset": "synthetic_images", "shape": [1, 4, 4], "classes": 3,
                                         "samples": 20, "test_samples": 5})")},
                     {"/model", parse(R"({"kind": "softmax"})")},
                     {"/compute", parse(R"({"profile": "a100-amp"})")}})});
  if (sgdsim::learning::torch_built()) {
    cases.push_back({"lenet5", edit(base(), {{"/data", parse(R"({"dataset": "mnist", "path": "mnist"})")},
                                             {"/model", parse(R"({"kind": "lenet5", "threads": 1})")}})});
    cases.push_back(
        {"resnet", edit(base(), {{"/data", parse(R"({"dataset": "cifar10", "path": "cifar"})")},
                                 {"/model", parse(R"({"kind": "resnet", "variant": "cifar", "depth": 8,
                                            "batch_norm": "averaged"})")}})});
    cases.push_back(
        {"torchscript",
         edit(base(),
              {{"/data", parse(R"({"dataset": "mnist", "path": "mnist"})")},
               {"/model", parse(R"({"kind": "torchscript", "path": "net.pt", "flops_per_sample": 1e5})")}})});
  }
  // Every example of every compressor kind as CHOCO's compressor (enough features for every example's k), so
  // that a new compressor is covered by its own examples.
  for (const sgdsim::keys::Kind* kind : sgdsim::compression::compressors().kinds()) {
    for (std::size_t i = 0; i < kind->examples.size(); ++i) {
      const std::string label = "example_" + kind->name + "_" + std::to_string(i);
      if (kind->has("homomorphic")) {
        // No protocol compresses its own messages with it: it is data_parallel's spelling of the collective
        // of its name (algorithms/protocols/spellings.hpp).
        const json algorithm = {{"kind", "data_parallel"}, {"steps", 5}, {"lr", 0.1}};
        cases.push_back(
            {label, edit(base(), {{"/algorithm", algorithm}, {"/algorithm/compressor", kind->examples[i]}}),
             edit(base(), {{"/algorithm", algorithm}, {"/algorithm/collective", kind->examples[i]}})});
        continue;
      }
      cases.push_back({label, edit(base(), {{"/data/features", 20},
                                            {"/algorithm", gossip("choco", kind->examples[i])}})});
    }
  }
  return cases;
}

// The small files the cases refer to, beside the scenarios.
void write_support_files(const fs::path& folder) {
  write_text(folder / "edges.txt", "# a 5-cycle with one chord\n0 1\n1 2\n2 3\n3 4\n4 0\n0 2\n");
  write_text(folder / "latency.trace", "# time factor\n0 1\n5 3\n");
  write_text(folder / "profile.json",
             R"({"description": "a test device", "host_speed": "2Gf", "memory_bandwidth": 4e9,
                 "codecs": {"none": {"encode": 1e9, "decode": 1e9}, "qsgd": {"encode": 2e8, "decode": 3e8}}})");
  std::string binary, binary_test, multiclass, regression;
  for (int i = 0; i < 24; ++i) {
    // Indices ascending (1, 2..5, 6), values varied.
    const std::string row = "1:0." + std::to_string(i % 9 + 1) + " " + std::to_string(2 + i % 4) + ":1." +
                            std::to_string(i % 7) + " 6:" + std::to_string(i % 3);
    binary += std::string(i % 2 ? "+1 " : "-1 ") + row + "\n";
    if (i < 8) binary_test += std::string(i % 3 ? "+1 " : "-1 ") + row + "\n";
    multiclass += std::to_string(i % 3 + 1) + " " + row + "\n";
    regression += std::to_string(0.25 + 0.5 * i) + " " + row + "\n";
  }
  // Image data: 8 + 4 MNIST-format images, one CIFAR-10 record per batch file; a TorchScript module for them
  // (written by tests/torch/fixture/write_torchscript, which links libtorch; this program does not).
  fs::create_directories(folder / "mnist");
  for (const auto& [prefix, n] : {std::pair<std::string, std::uint32_t>{"train", 8}, {"t10k", 4}}) {
    std::string images{'\0', '\0', '\x08', '\x03'}, labels{'\0', '\0', '\x08', '\x01'};
    for (std::uint32_t d : {n, 28u, 28u})
      for (int shift = 24; shift >= 0; shift -= 8) images.push_back(static_cast<char>((d >> shift) & 0xff));
    for (int shift = 24; shift >= 0; shift -= 8) labels.push_back(static_cast<char>((n >> shift) & 0xff));
    for (std::uint32_t i = 0; i < n; ++i) {
      images += std::string(28 * 28, static_cast<char>(i * 30));
      labels.push_back(static_cast<char>(i % 10));
    }
    write_text(folder / "mnist" / (prefix + "-images-idx3-ubyte"), images);
    write_text(folder / "mnist" / (prefix + "-labels-idx1-ubyte"), labels);
  }
  fs::create_directories(folder / "cifar");
  for (int b = 0; b <= 5; ++b) {
    const std::string name = b == 0 ? "test_batch.bin" : "data_batch_" + std::to_string(b) + ".bin";
    write_text(folder / "cifar" / name, std::string(1, static_cast<char>(b)) + std::string(3072, '\x40'));
  }
  if (sgdsim::learning::torch_built()) {
    const CommandResult written =
        run_command(std::string(SGDSIM_WRITE_TORCHSCRIPT) + " " + quote(folder / "net.pt"));
    REQUIRE(written.exit_code == 0);
  }
  write_text(folder / "binary.svm", binary);
  write_text(folder / "binary_test.svm", binary_test);
  write_text(folder / "multiclass.svm", multiclass);
  write_text(folder / "regression.svm", regression);
}

// `sgdsim validate` on a scenario file; the resolved scenario goes to `resolved`. Returns the exit code and
// stderr.
CommandResult validate(const fs::path& scenario, const fs::path& resolved) {
  std::string command = SGDSIM_BINARY;
  command += " validate " + quote(scenario) + " > " + quote(resolved);
  return run_command("(" + command + ")");
}

std::set<std::string> strings(const json& array) {
  std::set<std::string> out;
  for (const json& v : array) out.insert(v.get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("the scenario schema is a valid JSON Schema") {
  const json schema = json::parse(read_text(schema_path));
  CHECK(schema.at("$schema") == "http://json-schema.org/draft-07/schema#");
  const Scratch scratch("schema");
  const json report = check(json::object(), scratch.path);
  INFO(report.dump(2));
  CHECK(report.at("schema").empty());
}

TEST_CASE(
    "representative scenarios and their resolved forms satisfy the schema, with the loader's defaults") {
  const Scratch scratch("schema-cases");
  const fs::path& folder = scratch.path;
  write_support_files(folder);
  const std::vector<Case> cases = representative_cases();
  REQUIRE(cases.size() >= 25);
  json manifest = {{"accept", json::array()}, {"defaults", json::array()}, {"closed", json::array()}};
  std::set<std::string> topologies, algorithms, compressors, datasets, models, rates, triggers, partitions,
      memories, collectives;
  for (const Case& c : cases) {
    const fs::path input = folder / (c.label + ".json");
    const fs::path resolved = folder / (c.label + ".resolved.json");
    write_text(input, c.scenario.dump(2));
    const CommandResult result = validate(input, resolved);
    INFO(c.label << ": sgdsim validate: " << result.output);
    REQUIRE(result.exit_code == 0);
    const json r = json::parse(read_text(resolved));
    // A spelling's compressor may run as something else (THC's as its collective): it counts as covered.
    if (c.spelled_out && c.scenario["algorithm"].contains("compressor"))
      compressors.insert(c.scenario["algorithm"]["compressor"]["kind"].get<std::string>());
    manifest["accept"].push_back(input.string());
    manifest["accept"].push_back(resolved.string());
    if (c.spelled_out) {
      // The resolved form holds the defaults of the form that ran; the given spelling is checked against
      // itself (no default to compare), so that its keys count as used by a scenario the loader accepted.
      const fs::path spelled = folder / (c.label + ".spelled.json");
      write_text(spelled, c.spelled_out->dump(2));
      manifest["defaults"].push_back({spelled.string(), resolved.string()});
      manifest["defaults"].push_back({input.string(), input.string()});
    } else {
      manifest["defaults"].push_back({input.string(), resolved.string()});
    }
    manifest["closed"].push_back(resolved.string());
    // What this case covers, read from the resolved form (defaults included).
    topologies.insert(r["network"]["topology"]["kind"].get<std::string>());
    datasets.insert(r["data"]["dataset"].get<std::string>());
    models.insert(r["model"]["kind"].get<std::string>());
    const json& a = r["algorithm"];
    algorithms.insert(a["kind"].get<std::string>());
    rates.insert(a["lr"]["schedule"].get<std::string>());
    if (a.contains("trigger")) triggers.insert(a["trigger"]["schedule"].get<std::string>());
    if (a.contains("memory")) memories.insert(a["memory"]["kind"].get<std::string>());
    if (a.contains("collective")) collectives.insert(a["collective"]["kind"].get<std::string>());
    for (const json* compressor :
         {a.contains("compressor") ? &a["compressor"] : nullptr,
          a.contains("collective") && a["collective"].contains("compressor") ? &a["collective"]["compressor"]
                                                                             : nullptr}) {
      if (!compressor) continue;
      compressors.insert((*compressor)["kind"].get<std::string>());
      if (compressor->contains("stages"))
        for (const json& stage : (*compressor)["stages"])
          compressors.insert(stage["kind"].get<std::string>());
    }
    partitions.insert(r["data"]["partition"]["kind"].get<std::string>());
  }

  // Every kind the schema names is exercised (so the loader has accepted each of them with these keys).
  const json schema = json::parse(read_text(schema_path));
  const json& defs = schema.at("definitions");
  // A family's kinds, whether or not it has a shorthand form (then the object form is the second of oneOf).
  auto kinds = [&](const char* family, const char* discriminator) {
    const json& def = defs.at(family);
    const json& object = def.contains("oneOf") ? def["oneOf"][1] : def;
    return strings(object["properties"][discriminator]["enum"]);
  };
  CHECK(topologies == kinds("topology", "kind"));
  CHECK(algorithms == kinds("protocol", "kind"));
  CHECK(compressors == kinds("compressor", "kind"));
  CHECK(datasets == kinds("data", "dataset"));
  std::set<std::string> model_kinds = kinds("model", "kind");
  if (!sgdsim::learning::torch_built())
    for (const char* kind : {"lenet5", "resnet", "torchscript"}) model_kinds.erase(kind);
  CHECK(models == model_kinds);
  CHECK(rates == kinds("lr", "schedule"));
  CHECK(triggers == kinds("trigger", "schedule"));
  CHECK(partitions == kinds("partition", "kind"));
  CHECK(memories == kinds("memory", "kind"));
  CHECK(collectives == kinds("collective", "kind"));

  const json report = check(manifest, folder);
  CHECK(report.at("accept").size() == manifest["accept"].size());
  for (const auto& [file, errors] : report.at("accept").items()) {
    INFO(file << " (" << read_text(file) << ")\nschema errors: " << errors.dump(2));
    CHECK(errors.empty());
  }
  for (const auto& [file, problems] : report.at("defaults").items()) {
    INFO(file << ": " << problems.dump(2));
    CHECK(problems.empty());
  }
  for (const auto& [file, places] : report.at("open").items()) {
    INFO(file << ": objects where the schema accepts an unknown key: " << places.dump(2));
    CHECK(places.empty());
  }
  // A build without libtorch cannot load its models, so their keys go unused there.
  json uncovered = json::array();
  for (const json& place : report.at("uncovered")) {
    const std::string text = place.get<std::string>();
    const bool torch = text.find("lenet5") != std::string::npos || text.find("resnet") != std::string::npos ||
                       text.find("torchscript") != std::string::npos;
    if (!torch || sgdsim::learning::torch_built()) uncovered.push_back(place);
  }
  INFO("schema keys that no case uses (add a case, so the loader is seen to accept them): "
       << uncovered.dump(2));
  CHECK(uncovered.empty());
}

TEST_CASE("every choice the loader offers is an enum of the schema") {
  // For each place, an invalid value makes the loader list the values it accepts ("expected one of ...").
  const Scratch scratch("schema-choices");
  const fs::path& folder = scratch.path;
  const json schema = json::parse(read_text(schema_path));
  const json choco = gossip("choco", {{"kind", "qsgd"}});
  const json sparq =
      gossip("sparq", {{"kind", "compose"}, {"stages", {{{"kind", "topk"}, {"k", 2}}, {{"kind", "qsgd"}}}}},
             {{"trigger", json::object()}});
  const json server = {{"kind", "data_parallel"}, {"steps", 5}, {"lr", 0.1}};
  struct Place {
    json scenario;
    std::string pointer;  // where the invalid value goes
    std::string enum_at;  // the schema's enum for that place
  };
  const std::string d = "/definitions/";
  const std::vector<Place> places = {
      {base(), "/network/topology/kind", d + "topology/properties/kind/enum"},
      {base(), "/network/model", d + "network/properties/model/enum"},
      {base(), "/data/dataset", d + "data/properties/dataset/enum"},
      {base(), "/data/kind", d + "data.synthetic/properties/kind/enum"},
      {edit(base(), {{"/data/partition", json::object()}}), "/data/partition/kind",
       d + "partition/oneOf/1/properties/kind/enum"},
      {base(), "/model/kind", d + "model/properties/kind/enum"},
      {base(), "/algorithm/kind", d + "protocol/properties/kind/enum"},
      {base(), "/algorithm/weights", d + "protocol.dpsgd/properties/weights/enum"},
      {edit(base(), {{"/algorithm/lr", {{"value", 0.1}}}}), "/algorithm/lr/schedule",
       d + "lr/oneOf/1/properties/schedule/enum"},
      {edit(base(), {{"/algorithm", choco}}), "/algorithm/order", d + "protocol.choco/properties/order/enum"},
      {edit(base(), {{"/algorithm", choco}}), "/algorithm/compressor/kind",
       d + "compressor/properties/kind/enum"},
      {edit(base(), {{"/algorithm", choco}}), "/algorithm/compressor/table",
       d + "compressor.qsgd/properties/table/enum"},
      {edit(base(), {{"/algorithm", choco}}), "/algorithm/compressor/coding",
       d + "compressor.qsgd/properties/coding/enum"},
      {edit(base(), {{"/algorithm", choco}}), "/algorithm/compressor/elias",
       d + "compressor.qsgd/properties/elias/enum"},
      {edit(base(), {{"/algorithm", choco}}), "/algorithm/compressor/scale",
       d + "compressor.qsgd/properties/scale/enum"},
      {edit(base(), {{"/algorithm", sparq}}), "/algorithm/silence",
       d + "protocol.sparq/properties/silence/enum"},
      {edit(base(), {{"/algorithm", sparq}}), "/algorithm/trigger/schedule",
       d + "trigger/properties/schedule/enum"},
      {edit(base(), {{"/algorithm", sparq}}), "/algorithm/compressor/stages/0/kind",
       d + "compressor.compose/properties/stages/items/0/allOf/1/properties/kind/enum"},
      {edit(base(), {{"/algorithm", sparq}}), "/algorithm/compressor/stages/1/kind",
       d + "compressor.compose/properties/stages/items/1/allOf/1/properties/kind/enum"},
      {edit(base(), {{"/algorithm", server}}), "/algorithm/collective",
       d + "collective/oneOf/1/properties/kind/enum"},
      {edit(base(), {{"/algorithm", server}}), "/algorithm/memory",
       d + "memory/oneOf/1/properties/kind/enum"},
  };
  int index = 0;
  for (const Place& place : places) {
    const fs::path input = folder / ("choice" + std::to_string(index++) + ".json");
    write_text(input, edit(place.scenario, {{place.pointer, "no-such-choice"}}).dump(2));
    const CommandResult result = validate(input, folder / "ignored.json");
    INFO(place.pointer << ": " << result.output);
    REQUIRE(result.exit_code == 2);
    const std::string marker = "expected one of ";
    const auto begin = result.output.find(marker);
    REQUIRE(begin != std::string::npos);
    const auto end = result.output.find(", found", begin);
    REQUIRE(end != std::string::npos);
    std::set<std::string> offered;
    const std::string list = result.output.substr(begin + marker.size(), end - begin - marker.size());
    for (std::size_t q = list.find('"'); q != std::string::npos;
         q = list.find('"', list.find('"', q + 1) + 1))
      offered.insert(list.substr(q + 1, list.find('"', q + 1) - q - 1));
    CHECK(offered == strings(schema.at(json::json_pointer(place.enum_at))));
  }
}

TEST_CASE("keys of another kind are rejected by the loader and by the schema alike") {
  const Scratch scratch("schema-kinds");
  const fs::path& folder = scratch.path;
  write_support_files(folder);
  auto choco = [](const char* compressor) {
    return edit(base(), {{"/algorithm", gossip("choco", json::parse(compressor))}});
  };
  auto algorithm = [](const char* text) { return edit(base(), {{"/algorithm", json::parse(text)}}); };
  struct Refusal {
    std::string label;
    std::string place;  // the loader's message names this JSON path
    json scenario;
    bool schema_too = true;  // false: a rule between keys of one object, which the schema does not express
  };
  const std::vector<Refusal> cases = {
      {"code_table_levels", "compressor.levels", choco(R"({"kind": "qsgd", "table": "code", "levels": 4})"),
       false},
      {"code_table_elias_coding", "compressor.coding",
       choco(R"({"kind": "qsgd", "table": "code", "coding": "elias"})"), false},
      {"code_table_elias", "compressor.elias",
       choco(R"({"kind": "nuqsgd", "table": "code", "elias": "gamma"})"), false},
      {"paper_table_bits", "compressor.bits", choco(R"({"kind": "qsgdinf", "bits": 4})"), false},
      {"qsgd_ratio", "compressor.ratio", choco(R"({"kind": "qsgd", "ratio": 0.5})")},
      {"fixed_coding_elias", "compressor.elias",
       choco(R"({"kind": "qsgd", "coding": "fixed", "elias": "omega"})"), false},
      {"topk_k_and_fraction", "compressor.fraction", choco(R"({"kind": "topk", "k": 2, "fraction": 0.5})"),
       false},
      {"randk_neither", "compressor.k", choco(R"({"kind": "randk"})"), false},
      {"topk_levels", "compressor.levels", choco(R"({"kind": "topk", "k": 2, "levels": 4})")},
      {"sign_levels", "compressor.levels", choco(R"({"kind": "sign", "levels": 4})")},
      {"none_bucket", "compressor.bucket", choco(R"({"kind": "none", "bucket": 0})")},
      {"compose_one_stage", "compressor.stages",
       choco(R"({"kind": "compose", "stages": [{"kind": "topk", "k": 2}]})")},
      {"compose_swapped", "stages[0].kind",
       choco(R"({"kind": "compose", "stages": [{"kind": "qsgd"}, {"kind": "topk", "k": 2}]})")},
      {"compose_nested", "stages[1].kind", choco(R"({"kind": "compose", "stages": [{"kind": "topk", "k": 2},
                                   {"kind": "compose", "stages": [{"kind": "topk", "k": 1}, {"kind": "sign"}]}]})")},
      {"softmax_hidden", "model.hidden",
       edit(base(), {{"/model", json::parse(R"({"kind": "softmax", "hidden": [4]})")}})},
      {"mlp_positive_class", "model.positive_class",
       edit(base(), {{"/model", json::parse(R"({"kind": "mlp", "positive_class": 1})")}})},
      {"lr_step_without_every", "lr.every",
       edit(base(), {{"/algorithm/lr", json::parse(R"({"schedule": "step", "value": 0.1,
                                                                                 "factor": 0.5})")}})},
      {"lr_constant_t0", "lr.t0",
       edit(base(), {{"/algorithm/lr", json::parse(R"({"value": 0.1, "t0": 10})")}})},
      {"lr_inverse_time_factor", "lr.factor",
       edit(base(), {{"/algorithm/lr", json::parse(R"({"schedule": "inverse_time",
                                                 "value": 0.1, "t0": 10, "factor": 0.5})")}})},
      {"trigger_constant_epsilon", "trigger.epsilon",
       algorithm(
           R"({"kind": "sparq", "steps": 5, "lr": 0.1, "consensus_step": 0.5, "compressor": {"kind": "sign"},
                     "trigger": {"c0": 1, "epsilon": 0.5}})")},
      {"trigger_poly_every", "trigger.every",
       algorithm(
           R"({"kind": "sparq", "steps": 5, "lr": 0.1, "consensus_step": 0.5, "compressor": {"kind": "sign"},
                     "trigger": {"schedule": "poly", "every": 10}})")},
      {"dpsgd_compressor", "algorithm.compressor",
       algorithm(R"({"kind": "dpsgd", "steps": 5, "lr": 0.1, "compressor": {"kind": "sign"}})")},
      {"dpsgd_consensus_step", "algorithm.consensus_step",
       algorithm(R"({"kind": "dpsgd", "steps": 5, "lr": 0.1, "consensus_step": 0.5})")},
      {"choco_trigger", "algorithm.trigger",
       algorithm(R"({"kind": "choco", "steps": 5, "lr": 0.1, "consensus_step": 0.5,
                                      "compressor": {"kind": "sign"}, "trigger": {}})")},
      {"allgather_server", "algorithm.server",
       algorithm(R"({"kind": "data_parallel", "steps": 5, "lr": 0.1, "server": 0})")},
      {"data_parallel_weights", "algorithm.weights",
       algorithm(R"({"kind": "data_parallel", "steps": 5, "lr": 0.1, "weights": "uniform"})")},
      {"mlp_suboptimality", "eval.suboptimality",
       edit(base(), {{"/model", json::parse(R"({"kind": "mlp"})")}, {"/eval/suboptimality", true}}), false},
      {"synthetic_path", "data.path", edit(base(), {{"/data/path", "file.svm"}})},
      {"libsvm_noise", "data.noise",
       edit(base(), {{"/data", json::parse(R"({"dataset": "libsvm", "path": "binary.svm", "noise": 1})")}})},
      {"partition_dirichlet_string", "data.partition", edit(base(), {{"/data/partition", "dirichlet"}})},
      {"partition_iid_alpha", "partition.alpha",
       edit(base(), {{"/data/partition", json::parse(R"({"kind": "iid", "alpha": 1})")}})},
      {"override_edge_and_node", "overrides[0].edge",
       edit(base(), {{"/network/overrides", json::parse(R"([{"edge": [0, 1], "node": 2,
                                                                                        "latency": "1ms"}])")}}),
       false},
      {"override_no_value", "overrides[0].bandwidth",
       edit(base(), {{"/network/overrides", json::parse(R"([{"node": 2}])")}}), false},
      {"ring_dims", "topology.dims", edit(base(), {{"/network/topology/dims", json::parse("[2, 2]")}})},
      {"torus_nodes", "topology.nodes",
       edit(base(), {{"/network/topology", json::parse(R"({"kind": "torus", "dims": [2, 2],
                                                                          "nodes": 4})")}})},
  };
  json manifest = {{"reject", json::array()}};
  for (const Refusal& c : cases) {
    const fs::path input = folder / (c.label + ".json");
    write_text(input, c.scenario.dump(2));
    const CommandResult result = validate(input, folder / "ignored.json");
    INFO(c.label << ": sgdsim validate: " << result.output);
    CHECK(result.exit_code == 2);
    CHECK(result.output.find(c.place) != std::string::npos);
    if (c.schema_too) manifest["reject"].push_back(input.string());
  }
  const json report = check(manifest, folder);
  CHECK(report.at("reject").size() == manifest["reject"].size());
  for (const auto& [file, rejected] : report.at("reject").items()) {
    INFO(file << " is accepted by the schema: " << read_text(file));
    CHECK(rejected.get<bool>());
  }
}

TEST_CASE("the schema's unit patterns accept exactly the unit strings the loader accepts") {
  const Scratch scratch("schema-units");
  const fs::path& folder = scratch.path;
  const std::vector<std::pair<std::string, std::vector<json>>> values = {
      {"/network/link/bandwidth",
       {"100Mbps", "10MBps", "1KiBps", " 5Gbps",   " 5 Gbps ", "5Gbps ", ".5Mbps", "1e3Mbps",
        "0Mbps",   "-1Mbps", "+1Mbps", "0x10Mbps", "0x0Mbps",  "1mbps",  "1Kbps",  "1kbps",
        "1Mibps",  "1M bps", "Mbps",   "100",      12.5,       0}},
      {"/network/link/latency",
       {"500us", "0s", "1.5m", "1w", "-1ms", "1sec", "1", "1 ms", "0x1s", "+2ms", 0, -1}},
      {"/compute/host_speed",
       {"10Gf", "1kf", "1gigaflops", "1flops", "10Gflops", "0Gf", "1GF", "1Kif", "1Kf", "5e9", 5e9, 0}},
  };
  json manifest = {{"reject", json::array()}};
  std::map<std::string, bool> loader_accepts;
  int index = 0;
  for (const auto& [pointer, list] : values) {
    for (const json& value : list) {
      const fs::path input = folder / ("unit" + std::to_string(index++) + ".json");
      write_text(input, edit(base(), {{pointer, value}}).dump(2));
      const CommandResult result = validate(input, folder / "ignored.json");
      INFO(pointer << " = " << value.dump() << ": " << result.output);
      REQUIRE((result.exit_code == 0 || result.exit_code == 2));
      loader_accepts[input.string()] = result.exit_code == 0;
      manifest["reject"].push_back(input.string());
    }
  }
  const json report = check(manifest, folder);
  REQUIRE(report.at("reject").size() == loader_accepts.size());
  for (const auto& [file, rejected] : report.at("reject").items()) {
    INFO(read_text(file));
    CHECK(rejected.get<bool>() == !loader_accepts[file]);
  }
}

TEST_CASE("malformed scenarios that need no data or graph are rejected by the schema too") {
  // These are wrong only given the data, the graph or the files they name: beyond what a schema can see.
  const std::set<std::string> beyond_the_schema = {
      "missing_dataset_file.json",       "missing_edge_file.json",           "missing_fashion_mnist_dir.json",
      "more_nodes_than_samples.json",    "random_regular_odd.json",          "server_out_of_range.json",
      "topk_k_exceeds_dimension.json",   "train_subset_too_large.json",      "mtu_not_above_header.json",
      "ring_allreduce_compressed.json",  // mtu/header_bytes and compressor/collective: relations of two keys
      "subnormal_latency_string.json",   // a string whose value, once parsed, is out of range
      "variance_draws_gossip.json",      "variance_draws_stateful.json",  // eval against algorithm keys
      "variance_samples_too_large.json", "effective_bandwidth_too_low.json",
      "effective_speed_too_low.json",  // factors × the graph's values
      "profile_factor_subnormal.json",   "profile_mean_picoseconds.json",
      "profile_period_picoseconds.json",  // strings whose values, once
      "failure_mttr_picoseconds.json"};   // parsed, are out of range  // the [time, value] shape is shared
                                          // with failure intervals
  const Scratch scratch("schema-malformed");
  const fs::path& folder = scratch.path;
  json manifest = {{"reject", json::array()}};
  std::map<std::string, std::string> names;
  for (const auto& entry : fs::directory_iterator(source_dir / "tests/scenarios/malformed")) {
    const std::string name = entry.path().filename().string();
    if (beyond_the_schema.count(name)) continue;
    json document;
    try {
      document = sgdsim::parse_json_file(entry.path().string());
    } catch (const sgdsim::InputError&) {
      continue;  // not JSON at all: no schema applies
    }
    const fs::path copy = folder / name;  // without the "// expect:" comment
    write_text(copy, document.dump(2));
    manifest["reject"].push_back(copy.string());
    names[copy.string()] = name;
  }
  REQUIRE(names.size() >= 20);
  const json report = check(manifest, folder);
  CHECK(report.at("reject").size() == manifest["reject"].size());
  for (const auto& [file, rejected] : report.at("reject").items()) {
    INFO(names[file]
         << " is accepted by the schema (if its fault needs the data or the graph to see, list it in "
            "beyond_the_schema): "
         << read_text(file));
    CHECK(rejected.get<bool>());
  }
}

namespace {
// "a.b.0" -> the JSON pointer "/a/b/0" (the sweep's dotted paths).
json::json_pointer dotted(const std::string& path) {
  std::string pointer;
  std::size_t begin = 0;
  while (begin <= path.size()) {
    const std::size_t end = std::min(path.find('.', begin), path.size());
    pointer += '/';
    pointer += path.substr(begin, end - begin);
    begin = end + 1;
  }
  return json::json_pointer(pointer);
}

// The base a sweep names by path, if any.
std::optional<fs::path> base_file(const fs::path& sweep, const json& document) {
  if (!document.is_object() || !document.contains("base") || !document["base"].is_string())
    return std::nullopt;
  return fs::weakly_canonical(sweep.parent_path() / document["base"].get<std::string>());
}

// The scenarios a sweep stands for: its base with each grid value in turn (the other axes at their first
// value), and with each point's settings. Not the whole product: every value is checked in place once.
std::vector<json> sweep_scenarios(const fs::path& file, const json& document) {
  const std::optional<fs::path> path = base_file(file, document);
  const json base = path ? sgdsim::parse_json_file(path->string()) : document.at("base");
  const json grid = document.value("grid", json::object());
  const json points = document.value("points", json::array());
  auto values = [](const json& axis) { return axis.is_object() ? axis.at("values") : axis; };
  json first = base;
  for (const auto& [axis_path, axis] : grid.items()) first[dotted(axis_path)] = values(axis).at(0);
  std::vector<json> out;
  for (const auto& [axis_path, axis] : grid.items()) {
    for (const json& value : values(axis)) {
      out.push_back(first);
      out.back()[dotted(axis_path)] = value;
    }
  }
  for (const json& point : points) {
    out.push_back(first);
    for (const auto& [set_path, value] : point.at("set").items()) out.back()[dotted(set_path)] = value;
  }
  if (out.empty()) out.push_back(first);
  return out;
}
}  // namespace

TEST_CASE("bundled scenarios and sweeps satisfy the schema") {
  const Scratch scratch("schema-bundled");
  const fs::path& folder = scratch.path;
  std::map<fs::path, json> scenarios, sweeps;
  std::set<fs::path> bases;
  for (const auto& entry : fs::recursive_directory_iterator(source_dir / "scenarios")) {
    if (entry.path().extension() != ".json" || entry.path() == schema_path) continue;
    json document = sgdsim::parse_json_file(entry.path().string());
    const bool sweep = document.is_object() && document.contains("base");
    if (sweep)
      if (auto base = base_file(entry.path(), document)) bases.insert(*base);
    (sweep ? sweeps : scenarios)[entry.path()] = std::move(document);
  }
  // A sweep's base file may leave out what the grid fills in, so it is checked through its sweeps only.
  std::vector<std::pair<std::string, json>> checked;
  for (const auto& [path, document] : scenarios)
    if (!bases.count(fs::weakly_canonical(path)))
      checked.emplace_back(fs::relative(path, source_dir), document);
  for (const auto& [path, document] : sweeps) {
    const std::vector<json> list = sweep_scenarios(path, document);
    for (std::size_t i = 0; i < list.size(); ++i)
      checked.emplace_back(fs::relative(path, source_dir).string() + " #" + std::to_string(i), list[i]);
  }
  if (checked.empty()) {
    SUCCEED("no bundled scenarios yet");
    return;
  }
  json manifest = {{"accept", json::array()}};
  std::map<std::string, std::string> names;
  for (const auto& [name, document] : checked) {
    const fs::path copy = folder / (std::to_string(names.size()) + ".json");
    write_text(copy, document.dump(2));
    manifest["accept"].push_back(copy.string());
    names[copy.string()] = name;
  }
  const json report = check(manifest, folder);
  CHECK(report.at("accept").size() == names.size());
  for (const auto& [file, errors] : report.at("accept").items()) {
    INFO(names[file] << ": " << read_text(file) << "\nschema errors: " << errors.dump(2));
    CHECK(errors.empty());
  }
}
