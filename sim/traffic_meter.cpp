#include "sim/traffic_meter.hpp"

#include <algorithm>
#include <stdexcept>

namespace sgdsim::sim {

namespace s4u = simgrid::s4u;

TrafficMeter::TrafficMeter(Recording& recording, const std::vector<s4u::Host*>& hosts,
                           std::vector<PlatformLink> links)
    : recording_(&recording), hosts_(hosts) {
  recording.links.clear();
  for (auto& link : links) {
    index_[link.link] = static_cast<std::uint32_t>(links_.size());
    links_.push_back(link.link);
    recording.links.push_back(std::move(link.use));
  }
  busy_.resize(links_.size());
}

const std::vector<std::uint32_t>& TrafficMeter::route(std::size_t from, std::size_t to) {
  const std::uint64_t key = static_cast<std::uint64_t>(from) * hosts_.size() + to;
  if (auto it = routes_.find(key); it != routes_.end()) return it->second;
  std::vector<s4u::Link*> links;
  double latency = 0;
  hosts_.at(from)->route_to(hosts_.at(to), links, &latency);
  std::vector<std::uint32_t> indices;
  for (const s4u::Link* link : links) {
    auto it = index_.find(link);
    if (it == index_.end())
      throw std::logic_error("route " + std::to_string(from) + ">" + std::to_string(to) +
                             " crosses a link the platform did not list: " + link->get_name());
    indices.push_back(it->second);
  }
  return routes_.emplace(key, std::move(indices)).first->second;
}

void TrafficMeter::started(double put) {
  in_flight_.insert(put);
}

void TrafficMeter::add_interval(Busy& busy, double start, double finish) {
  if (!(finish > start)) return;
  auto& open = busy.open;
  // Merge with every interval that overlaps or touches [start, finish].
  auto it = open.upper_bound(start);
  if (it != open.begin() && std::prev(it)->second >= start) --it;
  while (it != open.end() && it->first <= finish) {
    start = std::min(start, it->first);
    finish = std::max(finish, it->second);
    it = open.erase(it);
  }
  open.emplace(start, finish);
}

void TrafficMeter::close_before(Busy& busy, double time) {
  auto& open = busy.open;
  while (!open.empty() && open.begin()->second < time) {
    busy.closed += open.begin()->second - open.begin()->first;
    open.erase(open.begin());
  }
}

void TrafficMeter::carried(std::size_t from, std::size_t to, std::uint64_t bytes, double put, double start,
                           double finish) {
  if (auto it = in_flight_.find(put); it != in_flight_.end()) in_flight_.erase(it);
  // Every message still on its way was put at or after `oldest`, so no later interval starts before it.
  const double oldest = in_flight_.empty() ? s4u::Engine::get_clock() : *in_flight_.begin();
  const std::vector<std::uint32_t>& links = route(from, to);
  for (const std::uint32_t k : links) {
    LinkUse& use = recording_->links[k];
    use.bytes += bytes;
    use.messages += 1;
    add_interval(busy_[k], start, finish);
    if (busy_[k].open.size() > 16) close_before(busy_[k], oldest);
  }
  if (!timeline()) return;
  Span transfer;
  transfer.kind = Span::Kind::send;
  transfer.start = start;
  transfer.end = finish;
  transfer.node = static_cast<std::uint32_t>(from);
  transfer.peer = static_cast<std::uint32_t>(to);
  transfer.bytes = bytes;
  transfer.step = recording_->timeline.options.step_of ? recording_->timeline.options.step_of(from) : 0;
  Timeline& timeline = recording_->timeline;
  const std::size_t spans = timeline.spans.size();
  span(transfer);
  if (timeline.spans.size() > spans) timeline.routes.try_emplace({transfer.node, transfer.peer}, links);
}

void TrafficMeter::span(Span span) {
  if (!timeline()) return;
  Timeline& timeline = recording_->timeline;
  if (timeline.cut) return;
  if (span.kind != Span::Kind::send && timeline.options.step_of)
    span.step = timeline.options.step_of(span.node);
  if (span.step < timeline.options.first_step || span.step > timeline.options.last_step) return;
  if (timeline.spans.size() >= timeline.options.max_spans) {
    timeline.cut = true;
    timeline.cut_time = span.start;
    timeline.cut_step = span.step;
    return;
  }
  timeline.spans.push_back(span);
}

void TrafficMeter::finish(double end) {
  for (std::size_t k = 0; k < links_.size(); ++k) {
    close_before(busy_[k], std::numeric_limits<double>::infinity());
    LinkUse& use = recording_->links[k];
    use.busy_s = busy_[k].closed;
    use.utilisation =
        end > 0 && use.bandwidth > 0 ? static_cast<double>(use.bytes) / (use.bandwidth * end) : 0.0;
  }
}

}  // namespace sgdsim::sim
