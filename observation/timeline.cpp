#include "observation/timeline.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "algorithms/protocols/port.hpp"

namespace sgdsim::observation {
namespace {

using nlohmann::json;

// Simulated seconds in the format's microseconds.
double micros(double seconds) {
  return seconds * 1e6;
}

std::string span_name(const sim::Span& s) {
  switch (s.kind) {
    case sim::Span::Kind::work:
      return std::string(protocols::work_names.at(s.work));
    case sim::Span::Kind::receive:
      return "receive from " + std::to_string(s.peer);
    case sim::Span::Kind::wait_sends:
      return "wait for sends";
    case sim::Span::Kind::wait_request:
      return "wait for a request";
    case sim::Span::Kind::send:
      return "send to " + std::to_string(s.peer);
  }
  return "?";
}

const char* category(const sim::Span& s) {
  switch (s.kind) {
    case sim::Span::Kind::work:
      return "work";
    case sim::Span::Kind::receive:
      return "receive";
    case sim::Span::Kind::send:
      return "send";
    default:
      return "wait";
  }
}

std::string link_label(const sim::LinkUse& link) {
  return link.link + " " + link.from + ">" + link.to;
}

}  // namespace

std::string timeline_cut_note(const sim::Timeline& timeline) {
  if (!timeline.cut) return {};
  return fmt::format(
      "the timeline was cut at its limit of {} spans (--timeline-limit), at simulated time {} s in step {}; "
      "later spans are left out (choose fewer steps with --timeline-steps)",
      timeline.options.max_spans, timeline.cut_time, timeline.cut_step);
}

void write_timeline(std::ostream& out, const sim::Timeline& timeline, const std::vector<sim::LinkUse>& links,
                    std::size_t nodes) {
  std::string text = "{\"traceEvents\":[\n";
  bool first = true;
  const auto emit = [&](const json& event) {
    text += (first ? "" : ",\n") + event.dump();
    first = false;
    if (text.size() > (1 << 20)) {
      out << text;
      text.clear();
    }
  };
  const auto links_pid = static_cast<std::int64_t>(nodes);
  for (std::size_t i = 0; i < nodes; ++i) {
    const auto pid = static_cast<std::int64_t>(i);
    emit({{"name", "process_name"},
          {"ph", "M"},
          {"pid", pid},
          {"args", {{"name", "node " + std::to_string(i)}}}});
    emit({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", pid}, {"args", {{"sort_index", pid}}}});
    emit({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", "node"}}}});
  }
  emit({{"name", "process_name"}, {"ph", "M"}, {"pid", links_pid}, {"args", {{"name", "links"}}}});
  emit({{"name", "process_sort_index"},
        {"ph", "M"},
        {"pid", links_pid},
        {"args", {{"sort_index", links_pid}}}});

  // Each link direction's utilisation as a step function: every message in transit over it adds its mean
  // rate over its transfer, bytes / (end - start), divided by the bandwidth.
  std::map<std::uint32_t, std::vector<std::pair<double, double>>> changes;  // link -> (time, change)
  std::uint64_t id = 0;
  std::vector<char> has_server(nodes, 0);
  for (const sim::Span& s : timeline.spans) {
    const auto pid = static_cast<std::int64_t>(s.node);
    const int tid = s.server ? 1 : 0;
    if (s.server && s.node < nodes && !has_server[s.node]) {
      has_server[s.node] = 1;
      emit({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", 1}, {"args", {{"name", "server"}}}});
    }
    if (s.kind == sim::Span::Kind::send) {
      ++id;
      const json args = {{"to", s.peer}, {"bytes", s.bytes}, {"step", s.step}};
      emit({{"name", span_name(s)},
            {"cat", "send"},
            {"ph", "b"},
            {"id", id},
            {"ts", micros(s.start)},
            {"pid", pid},
            {"tid", tid},
            {"args", args}});
      emit({{"name", span_name(s)},
            {"cat", "send"},
            {"ph", "e"},
            {"id", id},
            {"ts", micros(s.end)},
            {"pid", pid},
            {"tid", tid}});
      const auto route = timeline.routes.find({s.node, s.peer});
      if (route != timeline.routes.end() && s.end > s.start) {
        const double rate = static_cast<double>(s.bytes) / (s.end - s.start);
        for (const std::uint32_t k : route->second) {
          const double share = links.at(k).bandwidth > 0 ? rate / links.at(k).bandwidth : 0.0;
          changes[k].push_back({s.start, share});
          changes[k].push_back({s.end, -share});
        }
      }
      continue;
    }
    emit({{"name", span_name(s)},
          {"cat", category(s)},
          {"ph", "X"},
          {"ts", micros(s.start)},
          {"dur", micros(s.end - s.start)},
          {"pid", pid},
          {"tid", tid},
          {"args", {{"step", s.step}}}});
  }
  for (auto& [k, list] : changes) {
    std::stable_sort(list.begin(), list.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    const std::string name = link_label(links.at(k));
    double level = 0;
    for (std::size_t i = 0; i < list.size();) {
      const double time = list[i].first;
      for (; i < list.size() && list[i].first == time; ++i) level += list[i].second;
      if (std::fabs(level) < 1e-9) level = 0;  // what rounding leaves of flows that ended
      emit({{"name", name},
            {"cat", "link"},
            {"ph", "C"},
            {"ts", micros(time)},
            {"pid", links_pid},
            {"args", {{"utilisation", level}}}});
    }
  }
  json other = {{"generator", "sgdsim"},
                {"time", "simulated microseconds"},
                {"first_step", timeline.options.first_step},
                {"max_spans", timeline.options.max_spans},
                {"spans", timeline.spans.size()},
                {"cut", timeline.cut}};
  if (timeline.options.last_step != std::numeric_limits<std::int64_t>::max())
    other["last_step"] = timeline.options.last_step;
  if (timeline.cut) other["cut_note"] = timeline_cut_note(timeline);
  text += "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":" + other.dump() + "}\n";
  out << text;
}

}  // namespace sgdsim::observation
