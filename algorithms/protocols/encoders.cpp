#include "algorithms/protocols/encoders.hpp"

#include <algorithm>
#include <stdexcept>

#include "algorithms/compression/norms.hpp"
#include "algorithms/compression/quantizer.hpp"
#include "common/spec.hpp"

namespace sgdsim::protocols {

MessageCompressor make_message_compressor(Spec& parent, const std::string& key, std::size_t dimension,
                                          PriceTable& prices, const compression::Layout& layout) {
  Spec given = parent.variant(key);
  if (given.kind()->has("homomorphic"))
    given.fail("kind",
               "\"" + given.kind_name() +
                   "\" sums integers inside data_parallel's all-reduce, in a frame the workers agree on, "
                   "so it cannot compress a message of its own here; in data_parallel it runs as the "
                   "collective of that name (docs/compression.md)");
  MessageCompressor made;
  made.compressor = compression::make_compressor(given);
  made.compressor->use_layout(layout);
  // One trial encoding of a vector of the right length surfaces dimension errors now.
  Rng rng(0);
  made.compressor->encode(std::vector<float>(dimension, 1.0f), rng);
  const auto d = static_cast<double>(dimension);
  made.encode = {prices.codec(Work::encode, given.resolved(), given.where()), d};
  made.decode = {prices.codec(Work::decode, given.resolved(), given.where()), d};
  made.kind = given.kind_name();
  return made;
}

compression::Layout model_layout(const learning::Model& model) {
  std::vector<compression::Tensor> tensors;
  for (const learning::Model::Shape& shape : model.tensor_shapes())
    tensors.push_back({shape.rows, shape.cols});
  return compression::Layout(std::move(tensors));
}

std::vector<keys::Key> Encoders::keys(const std::string& compressor_help,
                                      std::optional<nlohmann::json> default_compressor) {
  keys::Key compressor = keys::variant("compressor", compression::compressors(), compressor_help);
  if (default_compressor) compressor.fallback_to(*default_compressor);
  return {compressor,
          keys::variant("memory", memories(), "What a node carries from one compressed message to the next.")
              .fallback_to({{"kind", "none"}})};
}

Encoders::Encoders(Spec& spec, std::size_t nodes, std::size_t dimension, std::uint64_t seed, WallClock* clock,
                   PriceTable& prices, const compression::Layout& layout, bool restores_average)
    : nodes_(nodes), clock_(clock) {
  MessageCompressor made = make_message_compressor(spec, "compressor", dimension, prices, layout);
  compressor_ = std::move(made.compressor);
  kind_ = made.kind;
  Spec memory = spec.variant("memory");
  restores_ = memory.kind()->has("estimates_average");
  if (!restores_average && restores_) {
    std::string takers;
    for (const std::string& name : memories().kind_names("estimates_average"))
      takers += (takers.empty() ? "\"" : ", \"") + name + "\"";
    spec.fail("memory", "\"" + memory.kind_name() +
                            "\" steps with an estimate of the averaged gradient, which only data_parallel "
                            "keeps; this protocol takes the other memories (not " +
                            takers + ")");
  }
  memory_ = make_memory(memory, nodes, dimension);
  encode_ = {made.encode, {prices.floats(Work::encode), memory_->floats_touched(dimension)}};
  restore_ = {prices.floats(Work::mixing), memory_->restore_floats(dimension)};
  decode_ = made.decode;
  for (std::size_t i = 0; i < nodes; ++i) {
    nodes_[i].rng = Rng::stream(seed, i, Purpose::compression);
    nodes_[i].state = compressor_->make_state(dimension);
  }
}

double Encoders::memory_momentum() const {
  return memory_->momentum();
}

void refuse_momentum_twice(const Spec& spec, const Encoders& encoders, double optimizer_momentum) {
  const auto text = [](double x) { return nlohmann::json(x).dump(); };
  if (encoders.memory_momentum() > 0 && optimizer_momentum > 0)
    spec.fail("memory", "this memory applies momentum itself (momentum " + text(encoders.memory_momentum()) +
                            ", DGC's momentum correction) and " + spec.path() + ".optimizer.momentum is " +
                            text(optimizer_momentum) +
                            ": momentum would be applied twice; set one of the two to 0");
}

bool Encoders::encode(std::size_t i, std::span<const float> vector, Bytes& bytes, std::span<float> own,
                      NodeStats& stats, SparseVector* sparse) {
  Node& node = nodes_[i];
  const std::span<const float> message = memory_->compensate(i, vector);
  bool is_sparse = false;
  {
    WallClock::Scope timer(clock_, WallClock::Part::compression);
    bytes.clear();
    compressor_->encode_with(message, node.rng, node.state.get(), bytes);
    is_sparse = sparse && compressor_->decode_sparse(bytes, own.size(), sparse->positions, sparse->values);
    if (is_sparse) {
      // What decode_into() gives: +0 everywhere but at the positions.
      std::fill(own.begin(), own.end(), 0.0f);
      for (std::size_t j = 0; j < sparse->positions.size(); ++j)
        own[sparse->positions[j]] = sparse->values[j];
    } else {
      compressor_->decode_into(bytes, own);
    }
  }
  account(i, message, own, stats);
  return is_sparse;
}

void Encoders::account(std::size_t i, std::span<const float> message, std::span<const float> own,
                       NodeStats& stats) {
  const compression::SquaredError terms = compression::squared_error(message, own);
  if (terms.norm > 0) {
    stats.compression_error += terms.error / terms.norm;
    stats.compressions += 1;
  }
  memory_->update(i, own);
}

bool Encoders::shares_scales() const {
  const auto* quantizer = dynamic_cast<const compression::Quantizer*>(compressor_.get());
  return quantizer && quantizer->shares_scales();
}

void Encoders::encode_shared(std::size_t i, std::span<const float> vector, Bytes& bytes, std::span<float> own,
                             NodeStats& stats, const std::function<void(std::vector<float>&)>& agree) {
  const auto* quantizer = dynamic_cast<const compression::Quantizer*>(compressor_.get());
  if (!quantizer || !quantizer->shares_scales())
    throw std::logic_error("encode_shared: the compressor \"" + kind_ + "\" does not share scales");
  Node& node = nodes_[i];
  const std::span<const float> message = memory_->compensate(i, vector);
  std::vector<float> scales;
  {
    WallClock::Scope timer(clock_, WallClock::Part::compression);
    quantizer->bucket_scales(message, scales);
  }
  agree(scales);
  WallClock::Scope timer(clock_, WallClock::Part::compression);
  bytes.clear();
  quantizer->encode_with_scales(message, scales, node.rng, bytes);
  compressor_->decode_into(bytes, own);
  account(i, message, own, stats);
}

void Encoders::decode(std::span<const std::uint8_t> bytes, std::span<float> out) const {
  WallClock::Scope timer(clock_, WallClock::Part::compression);
  compressor_->decode_into(bytes, out);
}

bool Encoders::decode_sparse(std::span<const std::uint8_t> bytes, std::size_t dimension,
                             SparseVector& out) const {
  WallClock::Scope timer(clock_, WallClock::Part::compression);
  return compressor_->decode_sparse(bytes, dimension, out.positions, out.values);
}

}  // namespace sgdsim::protocols
