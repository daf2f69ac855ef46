#include "observation/trace.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace sgdsim::observation {
namespace {
// Shortest representation that reads back to the same double: exact and deterministic.
std::string cell(const std::optional<double>& value) {
  return value ? fmt::format("{}", *value) : std::string();
}
template <typename T>
std::string cell(const std::optional<T>& value) {
  return value ? fmt::format("{}", *value) : std::string();
}
}  // namespace

void write_trace_row(std::ostream& out, const TraceRow& row) {
  out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}", row.step, row.sim_time_s, row.bits_sent,
                     row.bytes_on_wire, row.messages, cell(row.triggers), row.train_loss,
                     cell(row.test_accuracy), row.consensus_distance, cell(row.suboptimality),
                     cell(row.compression_error), fmt::join(row.work_s, ","), row.communication_s);
  if (row.failures)
    out << fmt::format(",{},{},{}", row.failures->messages_lost, row.failures->receives_timed_out,
                       row.failures->nodes_down);
  if (row.variance) out << fmt::format(",{},{}", cell(row.variance->sampling), cell(row.variance->estimator));
  out << '\n';
}

nlohmann::json to_json(const TraceRow& row) {
  auto optional = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  return {{"step", row.step},
          {"sim_time_s", row.sim_time_s},
          {"bits_sent", row.bits_sent},
          {"bytes_on_wire", row.bytes_on_wire},
          {"messages", row.messages},
          {"triggers", optional(row.triggers)},
          {"train_loss", row.train_loss},
          {"test_accuracy", optional(row.test_accuracy)},
          {"consensus_distance", row.consensus_distance},
          {"suboptimality", optional(row.suboptimality)},
          {"compression_error", optional(row.compression_error)}};
}

nlohmann::json time_split_json(const TraceRow& row) {
  nlohmann::json split = nlohmann::json::object();
  for (std::size_t w = 0; w < protocols::work_kinds; ++w)
    split[std::string(protocols::work_names[w])] = row.work_s[w];
  split["communication"] = row.communication_s;
  split["total"] = row.sim_time_s;
  return split;
}

}  // namespace sgdsim::observation
