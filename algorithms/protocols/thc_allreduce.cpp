// The collective kind thc: THC's homomorphic all-reduce (Li et al., NSDI 2024) on a ring. The workers agree
// on a frame (the largest of their norms, passed around the ring: n − 1 messages of 4 bytes), rotate their
// vectors with a randomized Hadamard transform of a shared seed, quantize them to b-bit indices in that frame
// (algorithms/compression/thc.hpp), and all-reduce the *indices* as integers: a reduce-scatter whose partial
// sums of k workers travel on sum_width(q, k) bits a coordinate and are added without decoding, then an
// all-gather of the finished sums. Each node decodes the sum once, −t + (S/n)Δ, and rotates it back. With
// error feedback (the authors' code's `ef`) a worker quantizes g + e and keeps e ← (g + e) − its own decoded
// vector.
#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <vector>

#include "algorithms/compression/bit_stream.hpp"
#include "algorithms/compression/hadamard.hpp"
#include "algorithms/compression/thc.hpp"
#include "algorithms/compression/thc_compressor.hpp"
#include "algorithms/protocols/collective.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"
#include "topologies/embedded_cycle.hpp"

namespace sgdsim::protocols {

namespace {

class ThcAllreduce final : public Collective {
 public:
  bool sends_message() const override { return false; }
  ThcAllreduce(const CollectiveSetup& setup, unsigned bits, double overflow, std::uint64_t seed,
               bool error_feedback, std::vector<std::size_t> ring)
      : setup_(setup),
        bits_(bits),
        overflow_(overflow),
        error_feedback_(error_feedback),
        rotation_(setup.dimension, seed),
        ring_(std::move(ring)),
        position_(ring_.size()),
        sums_(setup.nodes),
        rotated_(rotation_.padded()),
        received_(rotation_.padded()),
        mean_(rotation_.padded()),
        errors_(error_feedback ? setup.nodes : 0),
        compensated_(setup.dimension),
        decoded_(setup.dimension) {
    for (std::size_t p = 0; p < ring_.size(); ++p) position_[ring_[p]] = p;
    const auto padded = static_cast<double>(rotation_.padded());
    const double transform = padded * std::log2(std::max(padded, 2.0));
    PriceTable& prices = *setup.prices;
    norm_ = {prices.floats(Work::mixing), static_cast<double>(setup.dimension)};
    // The rotation (log₂ D passes of D floats, read and written), then the quantization (reads D, writes D).
    encode_ = {prices.floats(Work::encode), 2 * transform + 2 * padded};
    // The affine decode (reads D, writes D), then the inverse rotation.
    decode_ = {prices.floats(Work::decode), 2 * transform + 2 * padded};
    // Error feedback: g + e (reads two, writes one), the own decode and inverse rotation, e (reads two,
    // writes one), as the memory's arithmetic.
    feedback_ = {prices.floats(Work::encode),
                 2 * transform + 2 * padded + 6 * static_cast<double>(setup.dimension)};
    // The integer all-reduce is one collective call, one kernel (NCCL sums integers in its copy loop): its
    // first sum carries the launch, the other chunks' sums and copies launch nothing of their own.
    launched_mixing_ = prices.floats(Work::mixing);
    mixing_ = prices.floats(Work::mixing, Kernel::collective);
  }

  void average(std::size_t node, const protocols::Bytes&, std::span<const float> own, Rng& rng,
               std::span<float> average, protocols::Port& port) override {
    const std::size_t n = setup_.nodes;
    const std::size_t i = position_[node];
    const std::size_t next = ring_[(i + 1) % n], previous = ring_[(i + n - 1) % n];
    // The frame: the largest norm, passed around the ring (an all-gather of one float per node).
    std::vector<float>* error = nullptr;
    if (error_feedback_) {
      error = &errors_[node];
      if (error->empty()) error->assign(own.size(), 0.0f);
    }
    double squares = 0;
    for (std::size_t c = 0; c < own.size(); ++c) {
      const double v = error ? own[c] + (*error)[c] : own[c];
      squares += v * v;
    }
    float largest = static_cast<float>(std::sqrt(squares)), passing = largest;
    port.charge(norm_);
    for (std::size_t s = 0; s + 1 < n; ++s) {
      compression::Bytes bytes;
      compression::BitWriter writer(bytes);
      writer.reserve(32);
      writer.write_float(passing);
      writer.finish();
      port.send(next, std::move(bytes));
      const std::optional<protocols::Bytes> message = port.receive(previous);
      if (!message) throw std::logic_error("thc received silence");
      compression::BitReader in(*message, 0, "thc norm");
      if (!in.has(32)) in.fail("truncated message");
      passing = in.read_float();
      in.expect_end();
      if (!(passing >= 0.0f) || !std::isfinite(passing)) in.fail("a norm that is negative or not finite");
      largest = std::max(largest, passing);
    }
    const compression::ThcFrame frame = compression::thc_frame(largest, rotation_.padded(), overflow_, bits_);
    // This node's indices: its rotated vector quantized in the shared frame.
    std::vector<std::uint32_t>& sums = sums_[node];
    sums.resize(rotation_.padded());
    std::span<const float> input = own;
    if (error) {
      for (std::size_t c = 0; c < own.size(); ++c) compensated_[c] = own[c] + (*error)[c];
      input = compensated_;
    }
    rotation_.forward(input, rotated_);
    compression::thc_quantize(rotated_, frame, rng, sums);
    if (error) {
      // What this worker's indices mean alone, in the shared frame: the error is what they miss.
      compression::thc_decode_sums(sums, 1, frame, mean_);
      rotation_.inverse(mean_, decoded_);
      for (std::size_t c = 0; c < own.size(); ++c) (*error)[c] = compensated_[c] - decoded_[c];
      port.charge(feedback_);
    }
    port.charge(encode_);
    if (n > 1) {
      // Reduce-scatter: position i sends its partial sum of chunk i − s (s + 1 workers' indices) and adds
      // its own indices to the partial sum of chunk i − s − 1 it receives.
      for (std::size_t s = 0; s + 1 < n; ++s) {
        send(next, chunk(sums, i + n - s), compression::sum_width(frame.levels, s + 1), port);
        const std::span<std::uint32_t> mine = chunk(sums, i + 2 * n - s - 1);
        const std::span<std::uint32_t> partial = receive(previous, mine.size(), frame, s + 1, port);
        for (std::size_t c = 0; c < mine.size(); ++c) mine[c] += partial[c];
        port.charge({s == 0 ? launched_mixing_ : mixing_, 3.0 * static_cast<double>(mine.size())});
      }
      // All-gather of the finished sums (n workers' indices each).
      const unsigned width = compression::sum_width(frame.levels, n);
      for (std::size_t s = 0; s + 1 < n; ++s) {
        send(next, chunk(sums, i + 1 + n - s), width, port);
        const std::span<std::uint32_t> target = chunk(sums, i + n - s);
        const std::span<std::uint32_t> finished = receive(previous, target.size(), frame, n, port);
        std::copy(finished.begin(), finished.end(), target.begin());
        port.charge({mixing_, 2.0 * static_cast<double>(target.size())});
      }
      port.wait_sends();
    }
    // One decode of the sum, the same floats on every node.
    compression::thc_decode_sums(sums, n, frame, mean_);
    rotation_.inverse(mean_, average);
    port.charge(decode_);
  }

 private:
  std::span<std::uint32_t> chunk(std::span<std::uint32_t> v, std::size_t c) const {
    const std::size_t n = setup_.nodes, d = v.size();
    c %= n;
    const std::size_t begin = c * (d / n) + std::min(c, d % n);
    return v.subspan(begin, d / n + (c < d % n ? 1 : 0));
  }

  void send(std::size_t to, std::span<const std::uint32_t> sums, unsigned width, protocols::Port& port) {
    protocols::Bytes bytes;
    compression::write_sums(sums, width, bytes);
    port.send(to, std::move(bytes));
  }

  // The next chunk of sums of `terms` workers' indices from `from`, into the shared scratch (valid until
  // this node's next Port call).
  std::span<std::uint32_t> receive(std::size_t from, std::size_t size, const compression::ThcFrame& frame,
                                   std::size_t terms, protocols::Port& port) {
    const std::optional<protocols::Bytes> message = port.receive(from);
    if (!message) throw std::logic_error("thc received silence");
    const std::span<std::uint32_t> out = std::span<std::uint32_t>(received_).first(size);
    compression::read_sums(*message, compression::sum_width(frame.levels, terms),
                           static_cast<std::uint64_t>(frame.levels - 1) * terms, out);
    return out;
  }

  CollectiveSetup setup_;
  unsigned bits_;
  double overflow_;
  bool error_feedback_;
  compression::RandomizedHadamard rotation_;
  std::vector<std::size_t> ring_, position_;
  std::vector<std::vector<std::uint32_t>> sums_;  // per node: its indices, then the sums
  // Shared scratch, used between two Port calls of one node.
  std::vector<float> rotated_;
  std::vector<std::uint32_t> received_;
  std::vector<float> mean_;
  std::vector<std::vector<float>> errors_;    // per node, with error feedback
  std::vector<float> compensated_, decoded_;  // shared scratch, as above
  Charge norm_, encode_, decode_, feedback_;
  PriceId launched_mixing_ = 0, mixing_ = 0;
};

const bool registered_thc_allreduce = collectives().add(
    {"thc",
     "THC (Li et al., NSDI 2024), uniform: the workers agree on the largest norm (n − 1 messages of 4 bytes "
     "around the ring), rotate with a randomized Hadamard transform of a shared seed, quantize to b-bit "
     "integers in that shared frame, and all-reduce the integers around a ring, adding partial sums without "
     "decoding; every node decodes the sum once. Needs the workers' compressor \"none\": it quantizes the "
     "exact vectors itself.",
     compression::thc_keys(),
     {}},
    [](Spec& spec, const CollectiveSetup& setup) {
      const auto* format = dynamic_cast<const compression::FloatFormat*>(setup.compressor);
      if (!format || format->kind() != "none")
        throw InputError(setup.compressor_where +
                         ": the collective \"thc\" quantizes the workers' exact vectors itself; set the "
                         "compressor to \"none\"");
      const auto bits = static_cast<unsigned>(spec.integer("bits"));
      if (compression::sum_width(std::uint32_t{1} << bits, setup.nodes) > 32)
        spec.fail("bits", "a sum of " + std::to_string(setup.nodes) + " indices of " + std::to_string(bits) +
                              " bits would not fit 32 bits; use fewer bits");
      std::vector<std::size_t> ring;
      if (setup.network) ring = topology::embedded_cycle(*setup.network);
      if (ring.empty())
        for (std::size_t i = 0; i < setup.nodes; ++i) ring.push_back(i);
      return std::make_unique<ThcAllreduce>(setup, bits, spec.number("overflow"),
                                            static_cast<std::uint64_t>(spec.integer("rotation_seed")),
                                            spec.boolean("error_feedback"), std::move(ring));
    });

}  // namespace

}  // namespace sgdsim::protocols
