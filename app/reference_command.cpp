// `sgdsim schema` and `sgdsim docs`: the scenario format, printed from the key declarations themselves, and
// the outputs, printed from their declarations. The committed scenarios/scenario.schema.json,
// docs/scenario.md and docs/outputs.md are exactly this output (a test checks).
#include <cstdio>
#include <string>

#include "app/commands.hpp"
#include "common/error.hpp"
#include "common/key_schema.hpp"
#include "common/spec.hpp"
#include "observation/outputs_reference.hpp"
#include "scenarios/wiring/run_summary.hpp"
#include "scenarios/wiring/scenario.hpp"

namespace sgdsim::app {

namespace {

const char* const introduction =
    "Every key of a scenario file, generated from the declarations in the code by `sgdsim docs scenario` "
    "(do not edit by hand; `tools/regen-reference.sh` rewrites this file and "
    "scenarios/scenario.schema.json). "
    "Units: bandwidths are SimGrid strings such as \"100Mbps\" (bits/s) or \"10MBps\" (bytes/s), or numbers "
    "in "
    "bytes/s; durations \"500us\", \"1ms\" or seconds; speeds \"10Gf\" or flop/s. `sgdsim docs FAMILY "
    "[KIND]` "
    "prints one family or kind; docs/workflow.md shows how scenarios are used. Keys marked *Timing only.* "
    "(with everything inside them; `x-timing-only` in the schema) change only simulated time, never what the "
    "nodes compute; every other key may change what is learned.";

const keys::Family* find_family(const std::string& name) {
  for (const keys::Family* family : keys::families_under(scenarios::scenario_keys()))
    if (family->name() == name) return family;
  return nullptr;
}

std::string family_list() {
  std::string text;
  for (const keys::Family* family : keys::families_under(scenarios::scenario_keys())) {
    text += "  " + family->name() + ":";
    for (const auto& kind : family->kind_names()) text += " " + kind;
    text += "\n";
  }
  return text;
}

}  // namespace

void add_schema_command(CLI::App& root) {
  auto* cmd = root.add_subcommand("schema", "Print the JSON Schema of scenario files");
  cmd->callback([] {
    const auto schema = keys::json_schema(scenarios::scenario_keys(), "sgdsim scenario");
    std::printf("%s\n", schema.dump(2).c_str());
  });
}

void add_docs_command(CLI::App& root) {
  auto* cmd = root.add_subcommand(
      "docs",
      "Print the key reference: `docs scenario` (all of it), `docs FAMILY [KIND]` (e.g. docs compressor "
      "qsgd), or `docs` (the list of families and kinds); `docs outputs [--json]`: every trace column and "
      "summary field");
  auto topic = std::make_shared<std::string>();
  auto kind = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("topic", *topic,
                  "\"scenario\", \"outputs\" or a family (compressor, protocol, model, topology, ...)");
  cmd->add_option("kind", *kind, "One kind of the family");
  cmd->add_flag("--json", *json, "With `outputs`: the declarations as JSON, for tools");
  cmd->callback([topic, kind, json] {
    if (*json && *topic != "outputs") throw InputError("docs: --json goes with `docs outputs`");
    if (topic->empty()) {
      std::printf(
          "Families and their kinds (sgdsim docs FAMILY [KIND] for the keys):\n%s"
          "Outputs (trace columns, summary fields): sgdsim docs outputs\n",
          family_list().c_str());
      return;
    }
    if (*topic == "outputs") {
      if (!kind->empty()) throw InputError("docs outputs: takes no kind");
      const auto fields = scenarios::summary_field_docs();
      if (*json)
        std::printf("%s\n", observation::outputs_json(fields).dump(2).c_str());
      else
        std::printf("%s", observation::outputs_reference(fields).c_str());
      return;
    }
    if (*topic == "scenario") {
      std::printf(
          "%s",
          keys::key_reference(scenarios::scenario_keys(), "Scenario key reference", introduction).c_str());
      return;
    }
    const keys::Family* family = find_family(*topic);
    if (!family)
      throw InputError("docs: unknown topic \"" + *topic + "\"; known: scenario, outputs\n" + family_list());
    if (!kind->empty() && !family->find(*kind))
      throw InputError("docs: " + family->name() + " has no kind \"" + *kind +
                       "\"; known: " + quoted_list(family->kind_names()));
    std::printf("%s", keys::family_reference(*family, *kind).c_str());
  });
}

}  // namespace sgdsim::app
