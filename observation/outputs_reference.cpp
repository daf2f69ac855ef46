#include "observation/outputs_reference.hpp"

#include <sstream>

namespace sgdsim::observation {
namespace {

// Table cells must not contain a bare '|'.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string code(const std::string& text) {
  return text.empty() ? std::string() : "`" + text + "`";
}

std::string_view final_name(Final final) {
  switch (final) {
    case Final::no:
      return "no";
    case Final::core:
      return "core";
    case Final::extra:
      return "extra";
  }
  return "?";
}

// How analysis uses a column, in a few words.
std::string analysis_text(const Column& c) {
  std::string text;
  const auto add = [&text](const std::string& part) { text += (text.empty() ? "" : "; ") + part; };
  if (!c.alias.empty()) add("short name " + code(c.alias));
  if (c.log_scale) add("log axis");
  if (c.higher_is_better) add("targets reached from below");
  if (c.final == Final::core) add("in `final` and index.csv");
  if (c.final == Final::extra) add("in `final`; in index.csv when some run has it");
  return text;
}

const char* const introduction =
    "Every column of `trace.csv` and every field of `summary.json`, generated from the declarations in the "
    "code "
    "(observation/outputs.cpp, and the run's own fields in the composition root) by `sgdsim docs outputs` "
    "(do "
    "not edit by hand; `tools/regen-reference.sh` rewrites this file). `sgdsim docs outputs --json` prints "
    "the "
    "same for tools. `sgdsim run S.json -o DIR` writes, atomically, `DIR/trace.csv`, `DIR/summary.json` and "
    "`DIR/resolved.json` (the scenario with every default filled in: docs/scenario.md). Same scenario and "
    "seed "
    "give a byte-identical `trace.csv`.";

const char* const trace_text =
    "One row per evaluation: step 0, every `eval.every` steps, and the last step. Numbers are written with "
    "the "
    "shortest text that reads back to the same value; an empty cell is a value that does not apply. The "
    "columns "
    "come in this order; a column of some runs only is left out of the others' header. `plot`, `targets` and "
    "`table` take a column by its name or its short name (docs/workflow.md).";

const char* const summary_text =
    "One JSON object, keys in alphabetical order. A field `a.b` is the member `b` of the object `a`; "
    "`per_node[].b` is the member `b` of every object of the array `per_node`. `wall_clock_s`, `peak_rss_mb` "
    "and `version` differ from machine to machine and from release to release; everything else is determined "
    "by the scenario and seed.";

}  // namespace

std::string outputs_reference(const std::vector<FieldDoc>& summary_fields) {
  std::ostringstream out;
  out << "# Outputs\n\n" << introduction << "\n\n## trace.csv\n\n" << trace_text << "\n\n";
  out << "| column | unit | runs | meaning | empty when | analysis |\n|---|---|---|---|---|---|\n";
  for (const Column& c : trace_columns()) {
    out << "| `" << c.name << "` | " << cell(c.unit) << " | " << cell(std::string(when_text(c.when))) << " | "
        << cell(c.meaning) << " | " << cell(c.empty) << " | " << cell(analysis_text(c)) << " |\n";
  }
  out << "\n## summary.json\n\n" << summary_text << "\n\n";
  out << "| field | unit | runs | meaning |\n|---|---|---|---|\n";
  for (const FieldDoc& f : summary_fields) {
    out << "| `" << f.path << "` | " << cell(f.unit) << " | " << cell(std::string(when_text(f.when))) << " | "
        << cell(f.meaning) << " |\n";
  }
  return out.str();
}

nlohmann::ordered_json outputs_json(const std::vector<FieldDoc>& summary_fields) {
  nlohmann::ordered_json columns = nlohmann::ordered_json::array();
  for (const Column& c : trace_columns()) {
    columns.push_back({{"name", c.name},
                       {"unit", c.unit},
                       {"meaning", c.meaning},
                       {"when", when_name(c.when)},
                       {"empty", c.empty},
                       {"alias", c.alias},
                       {"axis", c.axis_label()},
                       {"title", c.title_words()},
                       {"higher_is_better", c.higher_is_better},
                       {"log_scale", c.log_scale},
                       {"final", final_name(c.final)}});
  }
  nlohmann::ordered_json fields = nlohmann::ordered_json::array();
  for (const FieldDoc& f : summary_fields)
    fields.push_back(
        {{"path", f.path}, {"unit", f.unit}, {"meaning", f.meaning}, {"when", when_name(f.when)}});
  nlohmann::ordered_json when = nlohmann::ordered_json::object();
  for (When w : {When::always, When::failures, When::variance_draws, When::diverged})
    when[std::string(when_name(w))] = when_text(w);
  return {{"trace.csv", columns}, {"summary.json", fields}, {"when", when}};
}

}  // namespace sgdsim::observation
