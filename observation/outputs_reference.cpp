#include "observation/outputs_reference.hpp"

#include <sstream>

#include "observation/links.hpp"

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
    "same for tools. `sgdsim run S.json -o DIR` writes, atomically, `DIR/trace.csv`, `DIR/summary.json`, "
    "`DIR/links.csv`, `DIR/resolved.json` (the scenario with every default filled in: docs/scenario.md) and, "
    "with `--timeline`, `DIR/timeline.json`. Same scenario and seed give byte-identical files (except "
    "summary.json's machine-dependent fields, below).\n\n"
    "While it runs, the run writes into `DIR.tmp-HOST-PID` beside DIR, renamed to DIR when complete, so DIR "
    "is never half-written. Its `trace.csv` grows there one whole row at a time (each row is written and "
    "flushed in one piece; a reader skips a last line without its newline), so `sgdsim plot DIR` and "
    "`sgdsim table DIR` work on a run in progress: they find the temporary folder and say so.";

const char* const trace_text =
    "One row per evaluation: step 0, every `eval.every` steps, and the last step. Numbers are written with "
    "the "
    "shortest text that reads back to the same value; an empty cell is a value that does not apply. The "
    "columns "
    "come in this order; a column of some runs only is left out of the others' header. `plot`, `targets` and "
    "`table` take a column by its name or its short name (docs/workflow.md).";

const char* const links_text =
    "One row per direction of every physical link (links are full duplex: each direction has its own "
    "bandwidth), in the order of the topology's edges. Every run writes it; summary.json's "
    "`network.bottleneck` names the direction with the highest utilisation.";

const char* const timeline_text =
    "Written by `sgdsim run ... --timeline`: the run in the Trace Event Format (JSON object form), which "
    "Perfetto (ui.perfetto.dev, or its offline build) and chrome://tracing open. Times are simulated "
    "microseconds, so the file is as deterministic as the trace.\n\n"
    "* Each node is a process (`node 0`, ...). On its thread, complete events (`\"ph\": \"X\"`) of category "
    "`work` named `gradient`, `encode`, `decode`, `mixing`, `update` (the work charged since the node last "
    "touched the network runs as one execution; the timeline shows its kinds one after the other, in that "
    "order), `receive` named `receive from J` (blocked until J's message has arrived: waiting for J, then "
    "the "
    "transfer), and `wait` named `wait for sends` or, on a server thread, `wait for a request`. Each carries "
    "`args.step`, the step the node was computing.\n"
    "* Each message is an async event (`\"ph\": \"b\"` then `\"e\"`, category `send`, named `send to J`) "
    "from the start of its transfer to its arrival, with `args.bytes` (wire bytes) and `args.to`.\n"
    "* The process `links` has a counter (`\"ph\": \"C\"`) per link direction that carried a message of the "
    "timeline, named `LINK FROM>TO`: `args.utilisation`, the sum over the messages in transit over it of "
    "their mean rate (bytes over transfer time) divided by its bandwidth.\n"
    "* `otherData` says which steps it holds (`first_step`, `last_step`; `--timeline-steps A:B`), how many "
    "spans (`spans`, at most `max_spans`; `--timeline-limit N`), and whether the limit cut it (`cut`, "
    "`cut_note`, also printed on stderr).";

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
  out << "\n## links.csv\n\n" << links_text << "\n\n";
  out << "| column | unit | meaning |\n|---|---|---|\n";
  for (const LinkColumn& c : link_columns())
    out << "| `" << c.name << "` | " << cell(c.unit) << " | " << cell(c.meaning) << " |\n";
  out << "\n## timeline.json\n\n" << timeline_text << "\n";
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
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const LinkColumn& c : link_columns())
    links.push_back({{"name", c.name}, {"unit", c.unit}, {"meaning", c.meaning}});
  return {{"trace.csv", columns}, {"summary.json", fields}, {"links.csv", links}, {"when", when}};
}

}  // namespace sgdsim::observation
