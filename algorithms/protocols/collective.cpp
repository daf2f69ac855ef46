#include "algorithms/protocols/collective.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "algorithms/protocols/encoders.hpp"
#include "algorithms/protocols/local_step.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

namespace {

void decode(const compression::Compressor& compressor, const protocols::Bytes& bytes, std::span<float> out,
            WallClock* clock) {
  WallClock::Scope timer(clock, WallClock::Part::compression);
  compressor.decode_into(bytes, out);
}

}  // namespace

ChunkPrices::ChunkPrices(const CollectiveSetup& setup, const compression::FloatFormat& format)
    : encode(setup.prices->codec(Work::encode, {{"kind", std::string(format.kind())}}, setup.compressor_where,
                                 Kernel::collective)),
      decode(setup.prices->codec(Work::decode, {{"kind", std::string(format.kind())}}, setup.compressor_where,
                                 Kernel::collective)),
      mixing(setup.prices->floats(Work::mixing, Kernel::collective)),
      call(setup.prices->floats(Work::mixing)) {}

namespace {

protocols::Bytes float32_bytes(std::span<const float> values) {
  protocols::Bytes bytes(4 * values.size());
  std::memcpy(bytes.data(), values.data(), bytes.size());  // little-endian hosts (as every format here)
  return bytes;
}

// values = max(values, the float32 values in `bytes`); a message of the wrong length is a protocol bug.
void take_maximum(std::span<float> values, const protocols::Bytes& bytes) {
  if (bytes.size() != 4 * values.size()) throw std::logic_error("a maximum's message has the wrong length");
  for (std::size_t k = 0; k < values.size(); ++k) {
    float other;
    std::memcpy(&other, bytes.data() + 4 * k, 4);
    values[k] = std::max(values[k], other);
  }
}

// Receives the values of every node but i (node order) and keeps the maximum.
void maximum_of_received(std::size_t nodes, std::size_t i, std::span<float> values, const Charge& compare,
                         protocols::Port& port) {
  for (std::size_t j = 0; j < nodes; ++j) {
    if (j == i) continue;
    protocols::Received received = port.receive_or_miss(j);
    if (received.status != protocols::Received::Status::message) continue;  // lost: the maximum of the rest
    take_maximum(values, received.bytes);
    port.charge(compare);
  }
}

}  // namespace

void Collective::maximum(std::size_t, std::span<float>, const Charge&, protocols::Port&) {
  // Only the collectives that carry compressed messages (allgather, parameter_server) meet compressors
  // with scales; the all-reduce ones take float formats alone.
  throw std::logic_error("this collective takes no maximum");
}

namespace {

// The vector arithmetic of averaging n decoded d-vectors: adding one of them (3 d floats), and zeroing the
// sum, adding the own vector and scaling (6 d).
struct AveragingCharges {
  explicit AveragingCharges(const CollectiveSetup& setup)
      : add{setup.prices->floats(Work::mixing), 3.0 * static_cast<double>(setup.dimension)},
        rest{setup.prices->floats(Work::mixing), 6.0 * static_cast<double>(setup.dimension)} {}
  Charge add, rest;
};

// Receives every other node's message and leaves the mean of all n decoded vectors in `sum`. Node order, not
// arrival order, so that every node that averages computes the same floats.
void average_in_node_order(const CollectiveSetup& setup, const AveragingCharges& charges, std::size_t i,
                           std::span<const float> own, std::vector<float>& decoded, std::span<float> sum,
                           protocols::Port& port) {
  std::fill(sum.begin(), sum.end(), 0.0f);
  std::size_t heard = 1;  // the own vector
  for (std::size_t j = 0; j < setup.nodes; ++j) {
    if (j == i) {
      axpy(sum, 1.0f, own);
      continue;
    }
    protocols::Received received = port.receive_or_miss(j);
    if (received.status == protocols::Received::Status::missing) continue;  // averaged over those heard
    if (received.status == protocols::Received::Status::silence)
      throw std::logic_error("data-parallel received silence");
    decode(*setup.compressor, received.bytes, decoded, setup.clock);
    axpy(sum, 1.0f, decoded);
    ++heard;
    // `decoded` is shared scratch: charge only once it is consumed.
    port.charge(setup.decode);
    port.charge(charges.add);
  }
  const float scale = 1.0f / static_cast<float>(heard);
  for (float& v : sum) v *= scale;
  port.charge(charges.rest);
}

// Every worker sends its message to every other over the routed network (multi-hop, contended) and averages
// all n decoded vectors itself.
class Allgather final : public Collective {
 public:
  explicit Allgather(const CollectiveSetup& setup)
      : setup_(setup), charges_(setup), decoded_(setup.dimension) {}
  void average(std::size_t i, const protocols::Bytes& message, std::span<const float> own, Rng&,
               std::span<float> average, protocols::Port& port) override {
    for (std::size_t j = 0; j < setup_.nodes; ++j)
      if (j != i) port.send(j, message);
    average_in_node_order(setup_, charges_, i, own, decoded_, average, port);
    port.wait_sends();
  }
  void maximum(std::size_t i, std::span<float> values, const Charge& compare,
               protocols::Port& port) override {
    const protocols::Bytes mine = float32_bytes(values);
    for (std::size_t j = 0; j < setup_.nodes; ++j)
      if (j != i) port.send(j, mine);
    maximum_of_received(setup_.nodes, i, values, compare, port);
    port.wait_sends();
  }

 private:
  CollectiveSetup setup_;
  AveragingCharges charges_;
  std::vector<float> decoded_;
};

// Workers send to the server node, which averages, encodes the average with its own compressor and sends it
// back; everyone (the server included) applies the decoded average.
class ParameterServer final : public Collective {
 public:
  ParameterServer(Spec& spec, const CollectiveSetup& setup)
      : setup_(setup), charges_(setup), decoded_(setup.dimension) {
    server_ = static_cast<std::size_t>(spec.integer("server"));
    if (server_ >= setup.nodes)
      spec.expected("server", "an integer in [0, " + std::to_string(setup.nodes - 1) + "] (a node id)");
    reply_ = make_message_compressor(spec, "compressor", setup.dimension, *setup.prices, setup.layout);
  }

  void average(std::size_t i, const protocols::Bytes& message, std::span<const float> own, Rng& rng,
               std::span<float> average, protocols::Port& port) override {
    if (i != server_) {
      port.send(server_, message);
      port.wait_sends();
      protocols::Received reply = port.receive_or_miss(server_);
      if (reply.status == protocols::Received::Status::missing) {
        std::fill(average.begin(), average.end(), 0.0f);  // no reply: this worker skips the step
        return;
      }
      if (reply.status == protocols::Received::Status::silence)
        throw std::logic_error("data-parallel received silence");
      decode(*reply_.compressor, reply.bytes, average, setup_.clock);
      port.charge(reply_.decode);
      return;
    }
    average_in_node_order(setup_, charges_, i, own, decoded_, average, port);
    protocols::Bytes reply;
    {
      WallClock::Scope timer(setup_.clock, WallClock::Part::compression);
      reply = reply_.compressor->encode(average, rng);
    }
    // The server applies what the workers will decode, so that all models stay identical (a by-product of
    // encoding in a deployment: not charged).
    decode(*reply_.compressor, reply, average, setup_.clock);
    port.charge(reply_.encode);
    for (std::size_t j = 0; j < setup_.nodes; ++j)
      if (j != i) port.send(j, reply);
    port.wait_sends();
  }
  // Through the server, as the averages: the workers' values up, their maximum back.
  void maximum(std::size_t i, std::span<float> values, const Charge& compare,
               protocols::Port& port) override {
    if (i != server_) {
      port.send(server_, float32_bytes(values));
      port.wait_sends();
      protocols::Received reply = port.receive_or_miss(server_);
      if (reply.status == protocols::Received::Status::message)
        take_maximum(values, reply.bytes);  // no reply: the worker keeps its own values
      port.charge(compare);
      return;
    }
    maximum_of_received(setup_.nodes, i, values, compare, port);
    const protocols::Bytes reply = float32_bytes(values);
    for (std::size_t j = 0; j < setup_.nodes; ++j)
      if (j != i) port.send(j, reply);
    port.wait_sends();
  }

 private:
  CollectiveSetup setup_;
  AveragingCharges charges_;
  std::size_t server_ = 0;
  MessageCompressor reply_;
  std::vector<float> decoded_;
};

const bool registered_collective =
    collectives().add(
        {"allgather",
         "Every worker sends its encoded vector to every other (routed, contended) and averages "
         "all n decoded vectors in node order (on a lossy network: those that arrived).",
         {},
         {"survives_failures"}},
        [](Spec&, const CollectiveSetup& setup) { return std::make_unique<Allgather>(setup); }) &&
    collectives().add(
        {"parameter_server",
         "Workers send to a server node, which averages, encodes the average with its own compressor and "
         "sends it back.",
         {keys::integer("server", "The server's node id.").fallback_to(0).at_least(0),
          keys::variant("compressor", compression::compressors(), "The compressor of the server's reply.")
              .fallback_to({{"kind", "none"}})},
         {"survives_failures"}},
        [](Spec& spec, const CollectiveSetup& setup) {
          return std::make_unique<ParameterServer>(spec, setup);
        });

}  // namespace

const compression::FloatFormat& require_float_format(const CollectiveSetup& setup,
                                                     const std::string& collective) {
  if (const auto* format = dynamic_cast<const compression::FloatFormat*>(setup.compressor)) return *format;
  throw InputError(setup.compressor_where + ": the collective \"" + collective +
                   "\" adds partial sums on the way and needs the workers' compressor to send floats (" +
                   quoted_list(compression::compressors().kind_names("float_format")) +
                   "): a compressed vector cannot be summed and re-encoded hop by hop without changing the "
                   "estimator; use \"allgather\" or \"parameter_server\" with compressed gradients");
}

keys::Registry<CollectiveFactory>& collectives() {
  static keys::Registry<CollectiveFactory> family(
      "collective", "kind", "How data-parallel workers average their encoded vectors.", {},
      keys::Shorthand{keys::Type::string, "", ""}, {},
      {{"survives_failures", "Averages what arrived when messages are lost (network.receive_timeout > 0)."},
       {"time_dependent",
        "Its average depends on simulated time (e.g. it sums in arrival order), and so does the run that "
        "uses it."}});
  return family;
}

std::unique_ptr<Collective> make_collective(Spec& spec, const CollectiveSetup& setup) {
  auto collective = collectives().factory(spec.kind_name())(spec, setup);
  spec.finish();
  return collective;
}

}  // namespace sgdsim::protocols
