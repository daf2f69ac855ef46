#include "algorithms/protocols/prices.hpp"

#include <stdexcept>

#include "algorithms/learning/model.hpp"
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
  }
  return "?";
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
  const double flops_per_sample = model.flops_per_sample();
  Price price;
  price.work = Work::gradient;
  price.unit = Unit::passes;
  price.subject = {
      {"model", description}, {"batch_size", batch_size}, {"flops_per_sample", flops_per_sample}};
  price.basis = Basis::flops;
  price.rate = flops_per_sample * static_cast<double>(batch_size);
  price.source = "the model's flop count (flops_per_sample × batch_size) at the host's speed";
  return add(std::move(price));
}

PriceId PriceTable::codec(Work work, const nlohmann::json& configuration, const std::string& where) {
  if (work != Work::encode && work != Work::decode)
    throw std::logic_error("a codec price is for encode or decode");
  const std::string kind = configuration.value("kind", "");
  const std::string direction(work_names[static_cast<std::size_t>(work)]);
  const auto found = costs_.codecs.find(kind);
  const double rate =
      found == costs_.codecs.end() ? 0 : (work == Work::encode ? found->second.encode : found->second.decode);
  if (rate <= 0 && charges(work)) {
    throw InputError(where + ": the compute profile has no " + direction +
                     " throughput for compressor kind \"" + kind + "\"; add it as compute.codecs." + kind +
                     "." + direction + " or calibrate a profile with `sgdsim calibrate`");
  }
  Price price;
  price.work = work;
  price.unit = Unit::coordinates;
  price.subject = configuration;
  price.basis = Basis::throughput;
  price.rate = rate;
  price.source =
      rate > 0 ? "compute codecs." + kind + "." + direction : "none (" + direction + " not charged)";
  return add(std::move(price));
}

PriceId PriceTable::floats(Work work) {
  Price price;
  price.work = work;
  price.unit = Unit::floats;
  price.subject = nlohmann::json::object();
  price.basis = Basis::bandwidth;
  price.rate = costs_.memory_bandwidth;
  price.source = "compute memory_bandwidth";
  return add(std::move(price));
}

// The same expressions, in the same order, as the costs were computed before the table existed, so that
// traces keep every bit.
double PriceTable::seconds(const Charge& charge, double host_speed) const {
  const Price& price = prices_.at(charge.price);
  if (!charges(price.work)) return 0;
  switch (price.basis) {
    case Basis::flops:
      return charge.amount * price.rate / host_speed;
    case Basis::throughput:
      return charge.amount / price.rate;
    case Basis::bandwidth:
      return price.rate <= 0 ? 0 : charge.amount * sizeof(float) / price.rate;
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
