#include "algorithms/protocols/collective.hpp"

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
    : encode(
          setup.prices->codec(Work::encode, {{"kind", std::string(format.kind())}}, setup.compressor_where)),
      decode(
          setup.prices->codec(Work::decode, {{"kind", std::string(format.kind())}}, setup.compressor_where)),
      mixing(setup.prices->floats(Work::mixing)) {}

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

 private:
  CollectiveSetup setup_;
  AveragingCharges charges_;
  std::size_t server_ = 0;
  MessageCompressor reply_;
  std::vector<float> decoded_;
};

const bool registered =
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
