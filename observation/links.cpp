#include "observation/links.hpp"

#include <fmt/format.h>

namespace sgdsim::observation {
namespace {

// The shortest text that reads back to the same double, as in trace.csv.
std::string number(double x) {
  return fmt::format("{}", x);
}

}  // namespace

const std::vector<LinkColumn>& link_columns() {
  static const std::vector<LinkColumn> columns = {
      {"link", "", "The physical link (links are full duplex: each direction has a row).",
       [](const sim::LinkUse& l) { return l.link; }},
      {"from", "", "The end the traffic of this row leaves from (a node).",
       [](const sim::LinkUse& l) { return l.from; }},
      {"to", "", "The end it goes to.", [](const sim::LinkUse& l) { return l.to; }},
      {"bandwidth_Bps", "bytes/s", "Nominal bandwidth of this direction.",
       [](const sim::LinkUse& l) { return number(l.bandwidth); }},
      {"bytes", "bytes",
       "Wire bytes (payload plus headers) of the nodes' messages routed over it: each message counts on "
       "every "
       "link of its route.",
       [](const sim::LinkUse& l) { return std::to_string(l.bytes); }},
      {"messages", "messages", "The nodes' messages routed over it.",
       [](const sim::LinkUse& l) { return std::to_string(l.messages); }},
      {"busy_s", "s",
       "Simulated seconds during which at least one of those messages was in transit over it (from the "
       "start of its transfer to its arrival, latency included).",
       [](const sim::LinkUse& l) { return number(l.busy_s); }},
      {"utilisation", "fraction",
       "Mean utilisation over the run: bytes / (bandwidth × the run's simulated seconds).",
       [](const sim::LinkUse& l) { return number(l.utilisation); }},
  };
  return columns;
}

void write_links(std::ostream& out, const std::vector<sim::LinkUse>& links) {
  std::string text;
  for (const LinkColumn& c : link_columns()) text += (text.empty() ? "" : ",") + c.name;
  text += '\n';
  for (const sim::LinkUse& link : links) {
    bool first = true;
    for (const LinkColumn& c : link_columns()) {
      std::string cell = c.cell(link);
      // Names are ours ("link0-1", "node3"); quote anyway should one ever hold a comma or a quote.
      if (cell.find_first_of(",\"\n") != std::string::npos) {
        std::string quoted = "\"";
        for (char ch : cell) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        cell = quoted + "\"";
      }
      text += (first ? "" : ",") + cell;
      first = false;
    }
    text += '\n';
  }
  out << text;
}

const sim::LinkUse* bottleneck(const std::vector<sim::LinkUse>& links) {
  const sim::LinkUse* best = nullptr;
  for (const sim::LinkUse& link : links)
    if (link.bytes > 0 && (!best || link.utilisation > best->utilisation)) best = &link;
  return best;
}

}  // namespace sgdsim::observation
