#include "observation/outputs.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "observation/links.hpp"

namespace sgdsim::observation {
namespace {

template <typename T>
Value optional_value(const std::optional<T>& value) {
  if (!value) return std::monostate{};
  return *value;
}

Value work(const TraceRow& row, protocols::Work kind) {
  return row.work_s[static_cast<std::size_t>(kind)];
}
// The columns below name each kind of work; a new kind needs its column.
static_assert(protocols::work_kinds == 5,
              "declare a trace column (and a simulated_time_s field) per Work kind");

std::vector<Column> declare_columns() {
  using protocols::Work;
  return {
      {.name = "step",
       .unit = "steps",
       .meaning = "Completed steps: 0 (the initial model), every eval.every steps, and the last step.",
       .axis = "step (iterations)",
       .final = Final::core,
       .value = [](const TraceRow& r) -> Value { return r.step; }},
      {.name = "sim_time_s",
       .unit = "s",
       .meaning = "Simulated seconds when the last node finished that step.",
       .alias = "time",
       .axis = "simulated time (s)",
       .final = Final::core,
       .value = [](const TraceRow& r) -> Value { return r.sim_time_s; }},
      {.name = "bits_sent",
       .unit = "bits",
       .meaning = "Cumulative payload bits over all directed messages (8 × the encoded bytes).",
       .alias = "bits",
       .axis = "payload bits sent, all nodes, cumulative (bits)",
       .title = "bits sent",
       .log_scale = true,
       .final = Final::core,
       .value = [](const TraceRow& r) -> Value { return r.bits_sent; }},
      {.name = "bytes_on_wire",
       .unit = "bytes",
       .meaning = "Cumulative payload plus network.header_bytes per message (per segment with network.mtu).",
       .final = Final::core,
       .value = [](const TraceRow& r) -> Value { return r.bytes_on_wire; }},
      {.name = "messages",
       .unit = "messages",
       .meaning = "Cumulative messages over all directed links.",
       .final = Final::core,
       .value = [](const TraceRow& r) -> Value { return r.messages; }},
      {.name = "triggers",
       .unit = "firings",
       .meaning = "Cumulative event-trigger firings over all nodes.",
       .empty = "protocols without an event trigger",
       .final = Final::core,
       .value = [](const TraceRow& r) { return optional_value(r.triggers); }},
      {.name = "train_loss",
       .meaning = "Loss (with l2) of the average model on the training set, or on eval.train_subset samples.",
       .alias = "loss",
       .axis = "training loss of the average model",
       .title = "training loss",
       .final = Final::core,
       .value = [](const TraceRow& r) -> Value { return r.train_loss; }},
      {.name = "test_accuracy",
       .unit = "fraction",
       .meaning = "Accuracy of the average model on the test set.",
       .empty = "no test set",
       .alias = "accuracy",
       .axis = "test accuracy of the average model (fraction)",
       .higher_is_better = true,
       .final = Final::core,
       .value = [](const TraceRow& r) { return optional_value(r.test_accuracy); }},
      {.name = "consensus_distance",
       .meaning = "(1/n) Σᵢ ‖xᵢ − x̄‖²: the mean squared distance of the node models to their average.",
       .alias = "consensus",
       .axis = "consensus distance (mean squared distance to the average model)",
       .log_scale = true,
       .final = Final::core,
       .value = [](const TraceRow& r) -> Value { return r.consensus_distance; }},
      {.name = "suboptimality",
       .meaning = "train_loss − f*, with f* solved before simulating (eval.suboptimality).",
       .empty = "no known f* (eval.suboptimality off, which needs a convex model) or eval.train_subset > 0",
       .axis = "suboptimality f(average model) - f* (loss units)",
       .log_scale = true,
       .final = Final::extra,
       .value = [](const TraceRow& r) { return optional_value(r.suboptimality); }},
      {.name = "compression_error",
       .meaning = "Mean ‖C(v) − v‖² / ‖v‖² over the vectors compressed since the previous row.",
       .empty = "no vector was compressed since the previous row",
       .final = Final::extra,
       .value = [](const TraceRow& r) { return optional_value(r.compression_error); }},
      {.name = "gradient_s",
       .unit = "s",
       .meaning = "Cumulative simulated seconds of computing minibatch gradients, mean over nodes.",
       .value = [](const TraceRow& r) { return work(r, Work::gradient); }},
      {.name = "encode_s",
       .unit = "s",
       .meaning = "Cumulative simulated seconds of encoding (compressing) messages, mean over nodes.",
       .value = [](const TraceRow& r) { return work(r, Work::encode); }},
      {.name = "decode_s",
       .unit = "s",
       .meaning = "Cumulative simulated seconds of decoding messages, mean over nodes.",
       .value = [](const TraceRow& r) { return work(r, Work::decode); }},
      {.name = "mixing_s",
       .unit = "s",
       .meaning =
           "Cumulative simulated seconds of mixing (weighted sums of models or gradients), mean over nodes.",
       .value = [](const TraceRow& r) { return work(r, Work::mixing); }},
      {.name = "update_s",
       .unit = "s",
       .meaning = "Cumulative simulated seconds of optimizer updates, mean over nodes.",
       .value = [](const TraceRow& r) { return work(r, Work::update); }},
      {.name = "communication_s",
       .unit = "s",
       .meaning = "The rest of each node's simulated time, mean over nodes: waiting for the network and for "
                  "its neighbours.",
       .value = [](const TraceRow& r) -> Value { return r.communication_s; }},
      {.name = "messages_lost",
       .unit = "messages",
       .meaning = "Cumulative sends that reached nobody (a link or node down).",
       .when = When::failures,
       .value = [](const TraceRow& r) -> Value { return r.failures->messages_lost; }},
      {.name = "receives_timed_out",
       .unit = "receives",
       .meaning = "Cumulative receives that gave up after network.receive_timeout.",
       .when = When::failures,
       .value = [](const TraceRow& r) -> Value { return r.failures->receives_timed_out; }},
      {.name = "nodes_down",
       .unit = "nodes",
       .meaning = "Nodes down at sim_time_s.",
       .when = When::failures,
       .value = [](const TraceRow& r) -> Value { return std::uint64_t{r.failures->nodes_down}; }},
      {.name = "sampling_variance",
       .meaning =
           "‖ĝ − g‖² / ‖g‖² of the workers' averaged minibatch gradient ĝ at the average model, against "
           "the gradient g on eval.variance_samples samples, mean over eval.variance_draws draws "
           "(docs/protocols.md): a relative mean squared error, which also counts g's own sampling error "
           "when variance_samples is a subsample.",
       .when = When::variance_draws,
       .empty = "the reference gradient g is zero",
       .value = [](const TraceRow& r) { return optional_value(r.variance->sampling); }},
      {.name = "estimator_variance",
       .meaning =
           "sampling_variance with every worker's gradient encoded and decoded by the run's compressor.",
       .when = When::variance_draws,
       .empty = "the reference gradient g is zero",
       .value = [](const TraceRow& r) { return optional_value(r.variance->estimator); }},
      {.name = "estimator_nvar",
       .meaning = "NUQSGD's normalised variance of the averaged encoded gradient ĝ = (1/n) Σ_i Q(g_i): Σ_c "
                  "Var[ĝ_c] / "
                  "Σ_c E[ĝ_c²] over the eval.variance_draws draws, centred on ĝ's own mean (no reference "
                  "gradient; 0 "
                  "with one draw).",
       .when = When::variance_draws,
       .empty = "the reference gradient g is zero",
       .value = [](const TraceRow& r) { return optional_value(r.variance->estimator_nvar); }},
  };
}

std::string cell(const Value& value) {
  // fmt's shortest representation reads back to the same number: exact and deterministic.
  return std::visit(
      [](const auto& v) -> std::string {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>)
          return {};
        else
          return fmt::format("{}", v);
      },
      value);
}

}  // namespace

std::string_view when_name(When when) {
  switch (when) {
    case When::always:
      return "always";
    case When::failures:
      return "failures";
    case When::variance_draws:
      return "variance_draws";
    case When::diverged:
      return "diverged";
  }
  return "?";
}

std::string_view when_text(When when) {
  switch (when) {
    case When::always:
      return "every run";
    case When::failures:
      return "runs that can fail (network.receive_timeout > 0)";
    case When::variance_draws:
      return "runs with eval.variance_draws > 0";
    case When::diverged:
      return "runs that diverged";
  }
  return "?";
}

bool RunShape::has(When when) const {
  switch (when) {
    case When::always:
      return true;
    case When::failures:
      return failures;
    case When::variance_draws:
      return variance_draws;
    case When::diverged:
      return diverged;
  }
  return false;
}

nlohmann::json to_json(const Value& value) {
  return std::visit(
      [](const auto& v) -> nlohmann::json {
        if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::monostate>)
          return nullptr;
        else
          return v;
      },
      value);
}

std::string Column::title_words() const {
  if (!title.empty()) return title;
  const std::string label = axis_label();
  return label.substr(0, label.find(" ("));
}

const std::vector<Column>& trace_columns() {
  static const std::vector<Column> columns = declare_columns();
  return columns;
}

const Column* find_column(std::string_view name_or_alias) {
  for (const Column& c : trace_columns())
    if (c.name == name_or_alias || (!c.alias.empty() && c.alias == name_or_alias)) return &c;
  return nullptr;
}

void write_trace_header(std::ostream& out, const RunShape& shape) {
  std::string line;
  for (const Column& c : trace_columns())
    if (shape.has(c.when)) line += (line.empty() ? "" : ",") + c.name;
  out << line + '\n';
  out.flush();
}

void write_trace_row(std::ostream& out, const TraceRow& row, const RunShape& shape) {
  std::string line;
  bool first = true;
  for (const Column& c : trace_columns()) {
    if (!shape.has(c.when)) continue;
    if (!first) line += ',';
    line += cell(c.value(row));
    first = false;
  }
  // One whole row per write, flushed: a reader of a run in progress sees complete rows (and at most a last
  // line without its newline, which readers skip).
  out << line + '\n';
  out.flush();
}

nlohmann::json& at_path(nlohmann::json& object, std::string_view path) {
  nlohmann::json* at = &object;
  for (std::size_t start = 0;;) {
    const std::size_t dot = path.find('.', start);
    at = &(*at)[std::string(path.substr(start, dot - start))];
    if (dot == std::string_view::npos) return *at;
    start = dot + 1;
  }
}

namespace {
// A summary field that is a trace column's value in the last row.
Field<Observed> last_row(const std::string& path, const std::string& column) {
  const Column* c = find_column(column);
  return {path, c->unit, c->meaning + (c->empty.empty() ? "" : " Null: " + c->empty + "."), c->when,
          [c](const Observed& o) { return to_json(c->value(o.last)); }};
}
}  // namespace

namespace {

// One node's simulated seconds: computing (every kind of work), the part of it done in the background while
// the node waited on the network, and waiting: the time the node computed nothing (work done by two threads
// at once fills the time only once).
struct NodeTime {
  double computing = 0, hidden = 0, waiting = 0;
};
NodeTime node_time(const protocols::NodeStats& stats) {
  NodeTime t;
  for (const double w : stats.work_s) t.computing += w;
  t.hidden = stats.hidden_s;
  t.waiting = std::max(0.0, stats.time - (t.computing - stats.concurrent_work_s));
  return t;
}

// The mean or the max over nodes of one part of their time.
nlohmann::json over_nodes(const Observed& o, double NodeTime::*part, bool max) {
  if (o.nodes.empty()) return 0.0;
  double sum = 0, top = 0;
  for (const auto& stats : o.nodes) {
    const double x = node_time(stats).*part;
    sum += x;
    top = std::max(top, x);
  }
  return max ? top : sum / static_cast<double>(o.nodes.size());
}

void node_time_fields(std::vector<Field<Observed>>& f) {
  f.push_back(group<Observed>("node_time_s", "s",
                              "Each node's simulated time, from the start to its last step, split into "
                              "computing, communicating while "
                              "computing, and waiting on the network; mean and max over nodes."));
  f.push_back(
      group<Observed>("node_time_s.computing", "s",
                      "Seconds the node's host computed (gradient, encode, decode, mixing, update)."));
  f.push_back({"node_time_s.computing.mean", "s", "Mean over nodes.", When::always,
               [](const Observed& o) { return over_nodes(o, &NodeTime::computing, false); }});
  f.push_back({"node_time_s.computing.max", "s", "Max over nodes.", When::always,
               [](const Observed& o) { return over_nodes(o, &NodeTime::computing, true); }});
  f.push_back(group<Observed>(
      "node_time_s.communicating_while_computing", "s",
      "Seconds of computing during which the node was also communicating: work in the background (the "
      "backward pass under data_parallel's overlap, AD-PSGD's gradient) while the node's own thread waited "
      "on the network. Communication hidden behind computation; part of computing, not of waiting. 0 "
      "without overlap."));
  f.push_back({"node_time_s.communicating_while_computing.mean", "s", "Mean over nodes.", When::always,
               [](const Observed& o) { return over_nodes(o, &NodeTime::hidden, false); }});
  f.push_back({"node_time_s.communicating_while_computing.max", "s", "Max over nodes.", When::always,
               [](const Observed& o) { return over_nodes(o, &NodeTime::hidden, true); }});
  f.push_back(group<Observed>(
      "node_time_s.waiting_on_network", "s",
      "Exposed communication: seconds the node was not computing, waiting for messages (their transfer, or "
      "a slower neighbour) or for its own sends to be delivered. Computing plus waiting is the node's time, "
      "less the seconds it did two kinds of work at once (overlap)."));
  f.push_back({"node_time_s.waiting_on_network.mean", "s", "Mean over nodes.", When::always,
               [](const Observed& o) { return over_nodes(o, &NodeTime::waiting, false); }});
  f.push_back({"node_time_s.waiting_on_network.max", "s", "Max over nodes.", When::always,
               [](const Observed& o) { return over_nodes(o, &NodeTime::waiting, true); }});
}

// A member of the bottleneck link direction, null when no link carried anything.
Field<Observed> bottleneck_field(const std::string& member, const std::string& unit,
                                 const std::string& meaning,
                                 std::function<nlohmann::json(const sim::LinkUse&)> value) {
  return {"network.bottleneck." + member, unit, meaning, When::always,
          [value](const Observed& o) -> nlohmann::json {
            const sim::LinkUse* link = o.links ? bottleneck(*o.links) : nullptr;
            return link ? value(*link) : nlohmann::json();
          }};
}

void network_fields(std::vector<Field<Observed>>& f) {
  f.push_back(group<Observed>("network", "", "The physical links (links.csv has one row per direction)."));
  f.push_back({"network.link_directions", "links", "Rows of links.csv: two per full-duplex link.",
               When::always,
               [](const Observed& o) -> nlohmann::json { return o.links ? o.links->size() : 0; }});
  f.push_back(group<Observed>("network.bottleneck", "",
                              "The link direction with the highest mean utilisation (the first of equals); "
                              "its members are null when no link carried a message."));
  f.push_back(bottleneck_field("link", "", "Its link (links.csv's link).",
                               [](const sim::LinkUse& l) -> nlohmann::json { return l.link; }));
  f.push_back(bottleneck_field("from", "", "The end its traffic leaves from.",
                               [](const sim::LinkUse& l) -> nlohmann::json { return l.from; }));
  f.push_back(bottleneck_field("to", "", "The end its traffic goes to.",
                               [](const sim::LinkUse& l) -> nlohmann::json { return l.to; }));
  f.push_back(bottleneck_field("utilisation", "fraction", "Its mean utilisation (links.csv's utilisation).",
                               [](const sim::LinkUse& l) -> nlohmann::json { return l.utilisation; }));
  f.push_back(bottleneck_field("busy_s", "s", "Its busy seconds (links.csv's busy_s).",
                               [](const sim::LinkUse& l) -> nlohmann::json { return l.busy_s; }));
  f.push_back(bottleneck_field("bytes", "bytes", "Its wire bytes (links.csv's bytes).",
                               [](const sim::LinkUse& l) -> nlohmann::json { return l.bytes; }));
}

}  // namespace

const std::vector<Field<Observed>>& observed_fields() {
  static const std::vector<Field<Observed>> fields = [] {
    std::vector<Field<Observed>> f;
    f.push_back(group<Observed>(
        "final", "",
        "The last complete trace row (before the divergence, for a run that diverged); null when the run "
        "diverged before its first row."));
    for (const Column& c : trace_columns())
      if (c.final != Final::no) f.push_back(last_row("final." + c.name, c.name));
    f.insert(f.end(),
             {
                 group<Observed>("totals", "", "Sums over the whole run and all nodes."),
                 {"totals.bits_sent", "bits", "Payload bits over all directed messages.", When::always,
                  [](const Observed& o) -> nlohmann::json { return o.last.bits_sent; }},
                 {"totals.bytes_on_wire", "bytes", "Payload plus header bytes.", When::always,
                  [](const Observed& o) -> nlohmann::json { return o.last.bytes_on_wire; }},
                 {"totals.messages", "messages", "Messages over all directed links.", When::always,
                  [](const Observed& o) -> nlohmann::json { return o.last.messages; }},
                 {"totals.triggers", "firings", "Event-trigger firings over all nodes (0 without a trigger).",
                  When::always,
                  [](const Observed& o) -> nlohmann::json {
                    std::uint64_t sum = 0;
                    for (const auto& node : o.nodes) sum += node.triggers;
                    return sum;
                  }},
                 {"totals.sim_time_s", "s", "Simulated seconds when the simulation stopped.", When::always,
                  [](const Observed& o) -> nlohmann::json { return o.end; }},
                 {"totals.messages_lost", "messages", "Sends that reached nobody.", When::failures,
                  [](const Observed& o) -> nlohmann::json { return o.last.failures->messages_lost; }},
                 {"totals.receives_timed_out", "receives", "Receives that gave up.", When::failures,
                  [](const Observed& o) -> nlohmann::json { return o.last.failures->receives_timed_out; }},
                 group<Observed>("simulated_time_s", "s",
                                 "The last row's simulated time by kind of work, and the total."),
                 last_row("simulated_time_s.gradient", "gradient_s"),
                 last_row("simulated_time_s.encode", "encode_s"),
                 last_row("simulated_time_s.decode", "decode_s"),
                 last_row("simulated_time_s.mixing", "mixing_s"),
                 last_row("simulated_time_s.update", "update_s"),
                 last_row("simulated_time_s.communication", "communication_s"),
                 {"simulated_time_s.total", "s", "sim_time_s of the last row.", When::always,
                  [](const Observed& o) -> nlohmann::json { return o.last.sim_time_s; }},
                 group<Observed>("per_node", "", "One object per node, in node order: what it sent."),
             });
    node_time_fields(f);
    network_fields(f);
    return f;
  }();
  return fields;
}

const std::vector<Field<NodeTotals>>& node_fields() {
  static const std::vector<Field<NodeTotals>> fields = {
      {"node", "", "The node's index.", When::always,
       [](const NodeTotals& n) -> nlohmann::json { return n.node; }},
      {"bits_sent", "bits", "Payload bits the node sent.", When::always,
       [](const NodeTotals& n) -> nlohmann::json { return n.stats.payload_bytes * 8; }},
      {"bytes_on_wire", "bytes", "Payload plus header bytes the node sent.", When::always,
       [](const NodeTotals& n) -> nlohmann::json { return n.stats.wire_bytes; }},
      {"messages", "messages", "Messages the node sent.", When::always,
       [](const NodeTotals& n) -> nlohmann::json { return n.stats.messages; }},
      {"triggers", "firings", "The node's event-trigger firings (0 without a trigger).", When::always,
       [](const NodeTotals& n) -> nlohmann::json { return n.stats.triggers; }},
  };
  return fields;
}

std::vector<FieldDoc> observed_field_docs() {
  std::vector<FieldDoc> docs = field_docs(observed_fields());
  for (const FieldDoc& d : field_docs(node_fields(), "per_node[].")) docs.push_back(d);
  return docs;
}

nlohmann::json observed_summary(const Observed& observed) {
  // The last row says what was measured (a run that diverged before its first row has none of it).
  const RunShape shape{.failures = observed.last.failures.has_value(),
                       .variance_draws = observed.last.variance.has_value()};
  nlohmann::json part = nlohmann::json::object();
  fill(part, observed_fields(), observed, shape);
  nlohmann::json& per_node = part["per_node"] = nlohmann::json::array();
  for (std::size_t i = 0; i < observed.nodes.size(); ++i) {
    nlohmann::json node = nlohmann::json::object();
    fill(node, node_fields(), NodeTotals{i, observed.nodes[i]}, shape);
    per_node.push_back(std::move(node));
  }
  return part;
}

}  // namespace sgdsim::observation
