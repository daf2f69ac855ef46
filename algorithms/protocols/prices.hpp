#pragma once
// The run's price table: what each piece of a node's work costs in simulated seconds (docs/compute.md).
// Protocols charge their work to the Port in units that do not depend on the device profile — minibatch
// gradients of a model, coordinates through a codec configuration, floats read and written by a kind of
// vector arithmetic — and the table turns such an amount into seconds, in one place. Its entries say what
// each price id means and where its rate came from, so that a recorded run's charges can be priced again
// under other settings. Deterministic by construction: never the wall clock of the current run.
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/protocols/costs.hpp"
#include "algorithms/protocols/port.hpp"

namespace sgdsim::learning {
class Model;
enum class Pass;
}  // namespace sgdsim::learning

namespace sgdsim::protocols {

// What a charge's amount counts.
enum class Unit {
  passes,       // minibatch gradients (forward and backward) of one model at one batch size
  coordinates,  // coordinates through one codec configuration (encode or decode)
  floats,       // float32 values read and written by vector arithmetic
};

// How a price turns an amount into seconds (the only place where that happens).
enum class Basis {
  flops,       // rate: flops per unit, executed at the host's nominal speed: amount · rate / host speed
  throughput,  // rate: units per second: amount / rate
  bandwidth,   // rate: bytes per second, 4 bytes per float: amount · 4 / rate (0 when rate is 0)
  seconds,     // rate: seconds per unit (an accelerator's roofline of the model's layers): amount · rate
};

// Whether a piece of work is a kernel of its own on an accelerator (a launch per charge) or runs inside a
// collective's kernel: NCCL runs a whole collective call as one kernel, the reduction fused into its copy
// loop, so the chunks' encodes, decodes and sums launch nothing of their own (docs/compute.md, "Collectives
// on an accelerator"). On a profile without launches both price the same.
enum class Kernel { own, collective };

// One entry of the table: what a price id is for, and its rate.
struct Price {
  Work work =
      Work::gradient;  // the kind of work it is charged as (and whose `compute.charge` switch applies)
  Unit unit = Unit::passes;
  // What exactly: {"model": {...}, "batch_size": B, "flops_per_sample": F} for a gradient, the codec
  // configuration ({"kind": ..., ...}) for encode and decode, {} for vector arithmetic; work inside a
  // collective's kernel (Kernel::collective) wraps them: {"codec": configuration, "kernel": "collective"}
  // for a codec, {"kernel": "collective"} for vector arithmetic.
  nlohmann::json subject;
  Basis basis = Basis::flops;
  double rate = 0;
  std::string source;   // where the rate came from: the profile, a scenario override, the model's flop count
  double overhead = 0;  // seconds added to each charged term of a non-zero amount: an accelerator's launches
};

// What a price is for, without its rate: what a recorded schedule keeps of its run's table.
struct PriceKey {
  Work work = Work::gradient;
  Unit unit = Unit::passes;
  std::string subject;  // JSON text
};

// The codec configuration a price of coordinates is for (its subject, unwrapped for work inside a
// collective's kernel).
const nlohmann::json& codec_configuration(const Price& price);

std::string_view unit_name(Unit unit);
std::string_view basis_name(Basis basis);

class PriceTable {
 public:
  // A table that charges the gradient only (the communication-only view) and has no codec prices.
  PriceTable() = default;
  // The scenario's compute settings: which kinds of work are charged, and the profile's rates.
  explicit PriceTable(Costs costs);

  // The price of one minibatch gradient of `model` (described by `description`, its resolved scenario
  // object) at `batch_size`; its subject carries the model's flop count and, when the model knows them, its
  // layers' costs, so that it can be priced again without the model. Under an accelerator profile it is the
  // roofline of those layers. Registering the same subject again gives the same id.
  PriceId gradient(const learning::Model& model, const nlohmann::json& description, std::size_t batch_size);
  // The price of one pass (forward or backward) of layers [begin, end) of the gradient `whole` (whose subject
  // carries the layers: a model that knows them), each layer split as learning::pass_of splits it: its
  // subject is the whole's plus {"part": {"pass": "backward", "layers": [begin, end]}}. Under an
  // accelerator profile the roofline of those layers' passes, else their flops at the host's speed.
  PriceId gradient_part(PriceId whole, learning::Pass pass, std::size_t begin, std::size_t end);
  // The price of a coordinate through codec configuration `configuration` (resolved; its "kind" names the
  // compressor kind) in direction `work` (Work::encode or Work::decode): the scenario's override of the kind,
  // else the profile's price of the configuration's priced form (compression/speed_keys.hpp). Throws
  // InputError naming `where`, the configuration and the calibrate command when that work is charged and
  // there is no price for it. With Kernel::collective, the same price without launches.
  PriceId codec(Work work, const nlohmann::json& configuration, const std::string& where,
                Kernel kernel = Kernel::own);
  // The price of a float read or written by vector arithmetic charged as `work` (mixing, update, or encode:
  // the memory's arithmetic): on an accelerator a launch per charge, none with Kernel::collective.
  PriceId floats(Work work, Kernel kernel = Kernel::own);
  // An entry priced elsewhere (a test); the same work, unit and subject as an existing entry gives that
  // entry's id.
  PriceId add(Price price);
  // A recorded run's entry priced under these settings, from its subject alone (a gradient's subject carries
  // its flop count, so no model is built): what `retime` prices a schedule with. Throws InputError naming
  // `where` when a codec configuration has no price, or when the subject is not one this table wrote.
  PriceId again(const PriceKey& recorded, const std::string& where);

  // Seconds of `charge` on a host of nominal speed `host_speed` (flop/s); 0 when its work is not charged.
  double seconds(const Charge& charge, double host_speed) const;
  // The kind of work a price is charged as.
  Work work(PriceId price) const { return prices_.at(price).work; }
  bool charges(Work work) const { return costs_.charges(work); }
  const std::vector<Price>& prices() const { return prices_; }
  // Why this table does not price the same work as `keys`, entry by entry (a price id is its position, so a
  // recorded charge means the same work only then); empty when it does.
  std::string mismatch(std::span<const PriceKey> keys) const;
  // The entries, in id order, as JSON: [{"id", "work", "unit", "subject", "basis", "rate", "source"}, ...].
  nlohmann::json to_json() const;
  // The codec prices in use, one entry per priced configuration, as compute.codecs reads them back:
  // [{"codec": {...}, "encode": r, "decode": r, "source": "..."}] (or "encode_source"/"decode_source" when
  // the two differ); a direction that is not charged and has no price is left out.
  nlohmann::json codec_prices() const;

 private:
  // A gradient's price from its subject {"model", "batch_size", "flops_per_sample"[, "layers"[, "part"]]}.
  PriceId gradient(nlohmann::json subject);
  // An accelerator's estimate of a codec configuration without a measured price (its launches when it is a
  // kernel of its own); false when its kind declares no passes.
  bool estimate_codec(Work work, const nlohmann::json& configuration, Kernel kernel, Price& price) const;

  Costs costs_;
  std::vector<Price> prices_;
  std::map<std::string, PriceId> ids_;  // work, unit and subject (as JSON text) -> id
};

}  // namespace sgdsim::protocols
