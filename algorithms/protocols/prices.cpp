#include "algorithms/protocols/prices.hpp"

#include <cstdio>
#include <optional>
#include <stdexcept>

#include "algorithms/compression/codec_passes.hpp"
#include "algorithms/compression/speed_keys.hpp"
#include "algorithms/learning/model.hpp"
#include "algorithms/protocols/roofline.hpp"
#include "common/error.hpp"

namespace sgdsim::protocols {

std::string_view unit_name(Unit unit) {
  switch (unit) {
    case Unit::passes:
      return "passes";
    case Unit::coordinates:
      return "coordinates";
    case Unit::floats:
      return "floats";
  }
  return "?";
}

std::string_view basis_name(Basis basis) {
  switch (basis) {
    case Basis::flops:
      return "flops";
    case Basis::throughput:
      return "throughput";
    case Basis::bandwidth:
      return "bandwidth";
    case Basis::seconds:
      return "seconds";
  }
  return "?";
}

namespace {
// The subject of vector arithmetic inside a collective's kernel, and the marker of a codec's.
const nlohmann::json& in_collective_kernel() {
  static const nlohmann::json marker = {{"kernel", "collective"}};
  return marker;
}
// Whether a codec price's subject is {"codec": configuration, "kernel": "collective"}.
bool is_in_collective(const nlohmann::json& subject) {
  return subject.is_object() && subject.size() == 2 && subject.contains("codec") &&
         subject["codec"].is_object() && subject.contains("kernel") && subject["kernel"] == "collective";
}
// `price` as work of `kernel`: inside a collective's kernel its subject is wrapped (so that a recorded run
// says so whatever its profile) and it has no launches.
Price in_kernel(Price price, Kernel kernel) {
  if (kernel == Kernel::own) return price;
  price.subject = price.unit == Unit::coordinates
                      ? nlohmann::json{{"codec", std::move(price.subject)}, {"kernel", "collective"}}
                      : in_collective_kernel();
  price.overhead = 0;
  return price;
}
// What a source says of the launches of work inside a collective's kernel.
constexpr const char* no_launch_of_its_own =
    "inside a collective's kernel: no launch of its own (NCCL runs a collective call as one kernel)";
}  // namespace

const nlohmann::json& codec_configuration(const Price& price) {
  return is_in_collective(price.subject) ? price.subject["codec"] : price.subject;
}

PriceTable::PriceTable(Costs costs) : costs_(std::move(costs)) {}

PriceId PriceTable::add(Price price) {
  const std::string key = std::string(work_names[static_cast<std::size_t>(price.work)]) + "/" +
                          std::string(unit_name(price.unit)) + "/" + price.subject.dump();
  if (const auto found = ids_.find(key); found != ids_.end()) return found->second;
  const auto id = static_cast<PriceId>(prices_.size());
  prices_.push_back(std::move(price));
  ids_.emplace(key, id);
  return id;
}

PriceId PriceTable::gradient(const learning::Model& model, const nlohmann::json& description,
                             std::size_t batch_size) {
  nlohmann::json subject{
      {"model", description}, {"batch_size", batch_size}, {"flops_per_sample", model.flops_per_sample()}};
  if (const std::vector<learning::LayerCost> layers = model.layer_costs(); !layers.empty())
    subject["layers"] = layers_json(layers);
  return gradient(std::move(subject));
}

namespace {
// A gradient part's pass and layers [begin, end), from its subject's "part"; nullopt when it is not one
// gradient_part writes for `layers` layers.
struct GradientPart {
  learning::Pass pass;
  std::size_t begin, end;
};
std::optional<GradientPart> gradient_part_of(const nlohmann::json& part, std::size_t layers) {
  if (!part.is_object() || part.size() != 2 || !part.contains("pass") || !part.contains("layers"))
    return std::nullopt;
  const nlohmann::json& pass = part["pass"];
  const nlohmann::json& range = part["layers"];
  if (pass != "forward" && pass != "backward") return std::nullopt;
  if (!range.is_array() || range.size() != 2 || !range[0].is_number_unsigned() ||
      !range[1].is_number_unsigned())
    return std::nullopt;
  const auto begin = range[0].get<std::size_t>(), end = range[1].get<std::size_t>();
  if (begin > end || end > layers) return std::nullopt;
  return GradientPart{pass == "forward" ? learning::Pass::forward : learning::Pass::backward, begin, end};
}
}  // namespace

PriceId PriceTable::gradient_part(PriceId whole, learning::Pass pass, std::size_t begin, std::size_t end) {
  nlohmann::json subject = prices_.at(whole).subject;
  if (prices_.at(whole).work != Work::gradient || !subject.contains("layers") || subject.contains("part"))
    throw std::logic_error("a part of a gradient is taken of a whole gradient whose model knows its layers");
  subject["part"] = {{"pass", pass == learning::Pass::forward ? "forward" : "backward"},
                     {"layers", {begin, end}}};
  return gradient(std::move(subject));
}

PriceId PriceTable::gradient(nlohmann::json subject) {
  const double flops_per_sample = subject.at("flops_per_sample").get<double>();
  const auto batch_size = subject.at("batch_size").get<std::size_t>();
  Price price;
  price.work = Work::gradient;
  price.unit = Unit::passes;
  // A model that does not describe its layers is one layer of its flops, compute-bound, launched as a
  // linear layer is (forward, and the two halves of backward).
  std::vector<learning::LayerCost> layers = {{flops_per_sample, 0, 0, 3}};
  const bool known = subject.contains("layers") && layers_of(subject["layers"], layers);
  std::string part;
  if (subject.contains("part")) {
    const std::optional<GradientPart> read =
        known ? gradient_part_of(subject["part"], layers.size()) : std::nullopt;
    if (!read) throw std::logic_error("a gradient part not made by gradient_part: " + subject.dump());
    std::vector<learning::LayerCost> passes;
    for (std::size_t l = read->begin; l < read->end; ++l)
      passes.push_back(learning::pass_of(layers[l], read->pass));
    part = std::string(read->pass == learning::Pass::forward ? "the forward" : "the backward") +
           " pass of layers " + std::to_string(read->begin) + " to " + std::to_string(read->end) + " (of " +
           std::to_string(layers.size()) + "): ";
    layers = std::move(passes);
  }
  if (costs_.roofline.active()) {
    price.basis = Basis::seconds;
    price.rate = roofline_seconds(costs_.roofline, layers, batch_size);
    price.source = part + roofline_source(costs_.roofline, layers.size(), known);
  } else {
    price.basis = Basis::flops;
    double flops = flops_per_sample;
    if (!part.empty()) {
      flops = 0;
      for (const learning::LayerCost& layer : layers) flops += layer.flops;
    }
    price.rate = flops * static_cast<double>(batch_size);
    price.source = part +
                   (part.empty() ? "the model's flop count (flops_per_sample × batch_size)"
                                 : "its layers' flops × batch_size") +
                   " at the host's speed";
  }
  price.subject = std::move(subject);
  return add(std::move(price));
}

PriceId PriceTable::again(const PriceKey& recorded, const std::string& where) {
  nlohmann::json subject;
  try {
    subject = nlohmann::json::parse(recorded.subject);
    switch (recorded.unit) {
      case Unit::passes:
        if (std::vector<learning::LayerCost> layers;
            recorded.work == Work::gradient && subject.is_object() && subject.contains("model") &&
            subject.contains("batch_size") && subject["batch_size"].is_number_unsigned() &&
            subject.contains("flops_per_sample") && subject["flops_per_sample"].is_number() &&
            (!subject.contains("layers") || layers_of(subject["layers"], layers)) &&
            (!subject.contains("part") ||
             (subject.contains("layers") && gradient_part_of(subject["part"], layers.size()))))
          return gradient(std::move(subject));
        break;
      case Unit::coordinates:
        if ((recorded.work == Work::encode || recorded.work == Work::decode) && subject.is_object()) {
          if (is_in_collective(subject))
            return codec(recorded.work, subject["codec"], where, Kernel::collective);
          return codec(recorded.work, subject, where);
        }
        break;
      case Unit::floats:
        if (subject == nlohmann::json::object()) return floats(recorded.work);
        if (subject == in_collective_kernel()) return floats(recorded.work, Kernel::collective);
        break;
    }
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where + ": the price " + recorded.subject + " cannot be read: " + e.what());
  }
  throw InputError(where + ": the price " + recorded.subject + " (" +
                   std::string(work_names[static_cast<std::size_t>(recorded.work)]) + ", " +
                   std::string(unit_name(recorded.unit)) +
                   ") is not one this sgdsim writes; record the run again");
}

namespace {
// "FILE: $.path" -> "FILE": the scenario a codec was configured in, for the calibrate command to name.
std::string origin_of(const std::string& where) {
  const auto colon = where.find(": $");
  return colon == std::string::npos ? std::string("S.json") : where.substr(0, colon);
}
}  // namespace

PriceId PriceTable::codec(Work work, const nlohmann::json& configuration, const std::string& where,
                          Kernel kernel) {
  if (work != Work::encode && work != Work::decode)
    throw std::logic_error("a codec price is for encode or decode");
  const std::string kind = configuration.value("kind", "");
  const std::string direction(work_names[static_cast<std::size_t>(work)]);
  const nlohmann::json priced = compression::priced_configuration(configuration);
  const auto pick = [&](const CodecSpeed& speed) {
    return work == Work::encode ? speed.encode : speed.decode;
  };
  double rate = 0;
  std::string source;
  // A scenario's override of the kind wins over the profile's price of the configuration.
  if (const auto found = costs_.codecs.find(kind); found != costs_.codecs.end() && pick(found->second) > 0) {
    rate = pick(found->second);
    source = "the scenario's compute.codecs." + kind + "." + direction;
  } else if (const auto entry = costs_.configurations.find(priced.dump());
             entry != costs_.configurations.end() && pick(entry->second.speed) > 0) {
    rate = pick(entry->second.speed);
    source = entry->second.source;
  }
  if (Price estimate; rate <= 0 && charges(work) && estimate_codec(work, configuration, kernel, estimate))
    return add(in_kernel(std::move(estimate), kernel));
  if (rate <= 0 && charges(work)) {
    const std::string profile = costs_.profile.empty() ? "the compute profile" : costs_.profile;
    throw InputError(
        where + ": " + profile + " has no " + direction + " price for codec configuration " + priced.dump() +
        "; measure it with `sgdsim calibrate --scenario " + origin_of(where) +
        " -o PROFILE.json` (which adds it to PROFILE.json) and set compute.profile, or give it " +
        "in compute.codecs as [{\"codec\": " + priced.dump() + ", \"encode\": ..., \"decode\": ...}]");
  }
  if (rate <= 0) source = "none (" + direction + " not charged)";
  Price price;
  price.work = work;
  price.unit = Unit::coordinates;
  price.subject = configuration;
  price.basis = Basis::throughput;
  price.rate = rate;
  price.source = source;
  return add(in_kernel(std::move(price), kernel));
}

bool PriceTable::estimate_codec(Work work, const nlohmann::json& configuration, Kernel kernel,
                                Price& price) const {
  if (!costs_.roofline.active() || costs_.memory_bandwidth <= 0) return false;
  const std::optional<compression::CodecPasses> declared = compression::codec_passes(configuration);
  if (!declared) return false;
  const bool encode = work == Work::encode;
  const double passes = encode ? declared->encode : declared->decode;
  const double kernels = encode ? declared->encode_kernels : declared->decode_kernels;
  price.work = work;
  price.unit = Unit::coordinates;
  price.subject = configuration;
  // `passes` floats of 4 bytes per coordinate: the bandwidth basis at memory_bandwidth / passes.
  price.basis = Basis::bandwidth;
  price.rate = costs_.memory_bandwidth / passes;
  char figures[160];
  if (kernel == Kernel::own) {
    price.overhead = kernels * costs_.roofline.launch_overhead.value;
    std::snprintf(figures, sizeof figures,
                  "%.3g passes of 4 bytes per coordinate at %.4g B/s and %.3g kernel launches of %.4g s",
                  passes, costs_.memory_bandwidth, kernels, costs_.roofline.launch_overhead.value);
  } else {
    std::snprintf(figures, sizeof figures, "%.3g passes of 4 bytes per coordinate at %.4g B/s", passes,
                  costs_.memory_bandwidth);
  }
  price.source = "an estimate for " + costs_.roofline.profile + ": " + figures +
                 " (the passes the kind declares, docs/compute.md)" +
                 (kernel == Kernel::own ? "" : std::string(", ") + no_launch_of_its_own);
  return true;
}

nlohmann::json PriceTable::codec_prices() const {
  // One entry per priced configuration, in the order the protocol registered them.
  nlohmann::json out = nlohmann::json::array();
  std::map<std::string, std::size_t> at;
  for (const Price& price : prices_) {
    // An accelerator's estimates are not prices one could give back as throughputs (they have launches):
    // the profile, which resolved.json names, makes them again.
    if (price.unit != Unit::coordinates || price.basis != Basis::throughput) continue;
    const nlohmann::json priced = compression::priced_configuration(codec_configuration(price));
    const std::string key = priced.dump();
    if (!at.count(key)) {
      at[key] = out.size();
      out.push_back({{"codec", priced}});
    }
    nlohmann::json& entry = out[at[key]];
    const std::string direction(work_names[static_cast<std::size_t>(price.work)]);
    if (price.rate > 0) {
      entry[direction] = price.rate;
      entry[direction + "_source"] = price.source;
    }
  }
  // One `source` when both directions share it; a configuration without any price (its work not charged)
  // is left out.
  nlohmann::json priced = nlohmann::json::array();
  for (nlohmann::json& entry : out) {
    if (!entry.contains("encode") && !entry.contains("decode")) continue;
    if (entry.contains("encode_source") && entry.contains("decode_source") &&
        entry["encode_source"] == entry["decode_source"]) {
      entry["source"] = entry["encode_source"];
      entry.erase("encode_source");
      entry.erase("decode_source");
    }
    priced.push_back(std::move(entry));
  }
  return priced;
}

PriceId PriceTable::floats(Work work, Kernel kernel) {
  Price price;
  price.work = work;
  price.unit = Unit::floats;
  price.subject = nlohmann::json::object();
  price.basis = Basis::bandwidth;
  price.rate = costs_.memory_bandwidth;
  price.source = "compute memory_bandwidth";
  if (costs_.roofline.active() && kernel == Kernel::collective) {
    price.source += std::string(" on ") + costs_.roofline.profile + ", " + no_launch_of_its_own;
  } else if (costs_.roofline.active()) {
    price.overhead = costs_.roofline.launch_overhead.value;
    price.source += ", and a kernel launch per charge on " + costs_.roofline.profile + " (" +
                    costs_.roofline.launch_overhead.source + ")";
  }
  return add(in_kernel(std::move(price), kernel));
}

// The same expressions, in the same order, as the costs were computed before the table existed, so that
// traces keep every bit.
double PriceTable::seconds(const Charge& charge, double host_speed) const {
  const Price& price = prices_.at(charge.price);
  if (!charges(price.work)) return 0;
  // Adding 0 changes no bit: without launches every price is what it was before they existed.
  const double launches = charge.amount > 0 ? price.overhead : 0.0;
  switch (price.basis) {
    case Basis::flops:
      return charge.amount * price.rate / host_speed + launches;
    case Basis::throughput:
      return charge.amount / price.rate + launches;
    case Basis::bandwidth:
      return price.rate <= 0 ? 0 : charge.amount * sizeof(float) / price.rate + launches;
    case Basis::seconds:
      return charge.amount * price.rate + launches;
  }
  return 0;
}

std::string PriceTable::mismatch(std::span<const PriceKey> keys) const {
  if (prices_.size() != keys.size())
    return "the recorded run had " + std::to_string(keys.size()) + " prices, these settings have " +
           std::to_string(prices_.size());
  for (std::size_t i = 0; i < prices_.size(); ++i) {
    const std::string subject = prices_[i].subject.dump();
    if (keys[i].work != prices_[i].work || keys[i].unit != prices_[i].unit || keys[i].subject != subject)
      return "price " + std::to_string(i) + " (" + keys[i].subject + ") is not this scenario's (" + subject +
             ")";
  }
  return "";
}

nlohmann::json PriceTable::to_json() const {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t id = 0; id < prices_.size(); ++id) {
    const Price& price = prices_[id];
    out.push_back({{"id", id},
                   {"work", work_names[static_cast<std::size_t>(price.work)]},
                   {"unit", unit_name(price.unit)},
                   {"subject", price.subject},
                   {"basis", basis_name(price.basis)},
                   {"rate", price.rate},
                   {"source", price.source}});
  }
  return out;
}

}  // namespace sgdsim::protocols
