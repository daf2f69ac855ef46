#include "sim/config/calibration_file.hpp"

#include "common/spec.hpp"

namespace sgdsim::sim {

namespace {

const keys::Object& segment_keys() {
  static const keys::Object segment{
      "calibration_segment",
      "The factors of messages from from_bytes up to the next segment's from_bytes.",
      {keys::number("from_bytes", "The smallest simulated message size (payload and headers) of the segment.")
           .at_least(0)
           .in_unit("bytes"),
       keys::number("latency_factor", "Multiplies the route's latency.").above(0),
       keys::number("bandwidth_factor", "Multiplies the bandwidth one flow may use on each link.").above(0)}};
  return segment;
}

}  // namespace

const keys::Object& calibration_keys() {
  static const keys::Object calibration{
      "calibration",
      "Factors of the flow model piecewise by message size, as SMPI's calibration (docs/validation.md).",
      {keys::string("source", "Where the factors come from.").may_be_absent(),
       keys::objects("segments", segment_keys(),
                     "Ascending from_bytes, the first 0: each segment's factors hold up to the next one's.")
           .must_be_given(),
       keys::any("fit", "How the factors were measured and fitted (for the record; not read).")
           .may_be_absent()}};
  return calibration;
}

NetworkCalibration read_calibration(const nlohmann::json& document, const std::string& file,
                                    const std::string& path, std::string* source) {
  json resolved;
  Spec spec(document, file, path, resolved, calibration_keys());
  if (spec.has("source")) {
    const std::string text = spec.string("source");
    if (source) *source = text;
  }
  NetworkCalibration calibration;
  std::vector<Spec> segments = spec.objects("segments");
  if (segments.empty()) spec.fail("segments", "expected at least one segment (the first from 0 bytes)");
  for (std::size_t i = 0; i < segments.size(); ++i) {
    Spec& s = segments[i];
    CalibrationSegment segment;
    segment.from_bytes = s.number("from_bytes");
    segment.latency_factor = s.number("latency_factor");
    segment.bandwidth_factor = s.number("bandwidth_factor");
    if (i == 0 && segment.from_bytes != 0)
      s.fail("from_bytes", "the first segment must start at 0 bytes (every size needs its factors)");
    if (i > 0 && !(segment.from_bytes > calibration.segments.back().from_bytes))
      s.fail("from_bytes", "segments must ascend: this one starts at or below the one before it");
    s.finish();
    calibration.segments.push_back(segment);
  }
  if (spec.has("fit")) spec.echo("fit", *spec.peek("fit"));
  spec.finish();
  return calibration;
}

nlohmann::json calibration_json(const NetworkCalibration& calibration, const std::string& source,
                                const nlohmann::json& fit) {
  nlohmann::json out = nlohmann::json::object();
  if (!source.empty()) out["source"] = source;
  nlohmann::json segments = nlohmann::json::array();
  for (const CalibrationSegment& s : calibration.segments)
    segments.push_back({{"from_bytes", s.from_bytes},
                        {"latency_factor", s.latency_factor},
                        {"bandwidth_factor", s.bandwidth_factor}});
  out["segments"] = segments;
  if (!fit.is_null()) out["fit"] = fit;
  return out;
}

}  // namespace sgdsim::sim
