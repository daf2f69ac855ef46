// The per-node encoders every compressing protocol uses: memory per node, compressor state per node, and the
// sender decoding its own bytes as receivers do.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "algorithms/protocols/encoders.hpp"
#include "common/spec.hpp"

using namespace sgdsim;
using nlohmann::json;

namespace {

// A stateful kind for this test only: each message carries how many messages its sender had sent before
// (its state), then the values in fp32. Receivers need no state to decode it.
class CountingCompressor final : public compression::Compressor {
 public:
  struct Count final : State {
    std::uint32_t sent = 0;
  };
  std::unique_ptr<State> make_state(std::size_t) const override { return std::make_unique<Count>(); }
  void encode_with(std::span<const float> values, Rng& rng, State* state,
                   compression::Bytes& out) const override {
    auto* count = dynamic_cast<Count*>(state);
    REQUIRE(count != nullptr);
    write(count->sent++, values, out);
    (void)rng;
  }
  void encode_into(std::span<const float> values, Rng&, compression::Bytes& out) const override {
    write(0, values, out);
  }
  void decode_from(std::span<const std::uint8_t> message, std::size_t start,
                   std::span<float> out) const override {
    REQUIRE(message.size() - start == 4 + 4 * out.size());
    std::memcpy(out.data(), message.data() + start + 4, 4 * out.size());
  }
  static std::uint32_t count_of(const compression::Bytes& bytes) {
    std::uint32_t count;
    std::memcpy(&count, bytes.data(), 4);
    return count;
  }

 private:
  static void write(std::uint32_t count, std::span<const float> values, compression::Bytes& out) {
    const std::size_t at = out.size();
    out.resize(at + 4 + 4 * values.size());
    std::memcpy(out.data() + at, &count, 4);
    std::memcpy(out.data() + at + 4, values.data(), 4 * values.size());
  }
};

const bool registered = compression::compressors().add(
    {"test_counting", "Test only: a message counter, then fp32 values.", {}, {}},
    [](Spec&) { return std::make_unique<CountingCompressor>(); });

struct Built {
  explicit Built(const json& protocol, std::size_t nodes, std::size_t d)
      : value(protocol),
        declared{"protocol", "", protocols::Encoders::keys("test")},
        spec(value, "test.json", "$.algorithm", resolved, declared),
        encoders(spec, nodes, d, 11, nullptr, prices) {
    spec.finish();
  }
  json value, resolved;
  keys::Object declared;
  Spec spec;
  protocols::PriceTable prices;
  protocols::Encoders encoders;
};

}  // namespace

TEST_CASE("a stateful compressor keeps one state per sender, carried from message to message") {
  REQUIRE(registered);
  Built built({{"compressor", {{"kind", "test_counting"}}}}, 3, 4);
  const std::vector<float> v = {1, -2, 3, -4};
  std::vector<float> own(4);
  compression::Bytes bytes;
  protocols::NodeStats stats;
  // Node 1 sends three messages, node 0 one, node 2 none: each counts its own.
  for (std::uint32_t expected : {0u, 1u, 2u}) {
    built.encoders.encode(1, v, bytes, own, stats);
    CHECK(CountingCompressor::count_of(bytes) == expected);
    CHECK(own == v);
  }
  built.encoders.encode(0, v, bytes, own, stats);
  CHECK(CountingCompressor::count_of(bytes) == 0);
  // Receivers decode from the bytes alone.
  std::vector<float> received(4);
  built.encoders.decode(bytes, received);
  CHECK(received == v);
  CHECK(stats.compressions == 4);
  CHECK(stats.compression_error == 0.0);
}

TEST_CASE("error feedback carries each node's own compression error into its next message") {
  Built built({{"compressor", {{"kind", "topk"}, {"k", 1}}}, {"memory", "error_feedback"}}, 2, 4);
  CHECK(built.resolved["memory"] == json{{"kind", "error_feedback"}});
  const std::vector<float> v = {4, 3, 2, 1};
  std::vector<float> own(4);
  compression::Bytes bytes;
  protocols::NodeStats stats;
  // Node 0: e = 0; sends 4 at 0 (e = 0,3,2,1); then v + e = 4,6,4,2 sends 6 at 1 (e = 4,0,4,2); then
  // 8,3,6,3 sends 8 at 0.
  built.encoders.encode(0, v, bytes, own, stats);
  CHECK(own == std::vector<float>{4, 0, 0, 0});
  built.encoders.encode(0, v, bytes, own, stats);
  CHECK(own == std::vector<float>{0, 6, 0, 0});
  // Node 1 has its own memory, still empty.
  built.encoders.encode(1, v, bytes, own, stats);
  CHECK(own == std::vector<float>{4, 0, 0, 0});
  built.encoders.encode(0, v, bytes, own, stats);
  CHECK(own == std::vector<float>{8, 0, 0, 0});
}

TEST_CASE("without a memory each vector is compressed as it is") {
  Built built({{"compressor", {{"kind", "topk"}, {"k", 1}}}}, 1, 4);
  CHECK(built.resolved["memory"] == json{{"kind", "none"}});
  const std::vector<float> v = {4, 3, 2, 1};
  std::vector<float> own(4);
  compression::Bytes bytes;
  protocols::NodeStats stats;
  for (int round = 0; round < 3; ++round) {
    built.encoders.encode(0, v, bytes, own, stats);
    CHECK(own == std::vector<float>{4, 0, 0, 0});
  }
  // ||C(v) − v||² / ||v||² = (9 + 4 + 1) / 30 per message.
  CHECK(stats.compression_error == Approx(3 * 14.0 / 30.0));
}

TEST_CASE("asked for the sparse form, encode gives the same bytes and decoded vector, and the sparse form") {
  // Two encoders with the same seed: one asked for the sparse form, one not, on the same vectors.
  for (const json& compressor : {json{{"kind", "topk"}, {"k", 2}}, json{{"kind", "randk"}, {"k", 3}},
                                 json{{"kind", "qsgd"}, {"levels", 4}}}) {
    INFO(compressor.dump());
    Built plain({{"compressor", compressor}, {"memory", "error_feedback"}}, 1, 7);
    Built sparse({{"compressor", compressor}, {"memory", "error_feedback"}}, 1, 7);
    const bool selects = compressor["kind"] != "qsgd";
    std::vector<float> own_plain(7, 9.0f), own_sparse(7, 9.0f);  // stale values must be overwritten
    compression::Bytes bytes_plain, bytes_sparse;
    protocols::NodeStats stats_plain, stats_sparse;
    protocols::SparseVector form;
    for (int round = 0; round < 3; ++round) {
      const std::vector<float> v = {0.5f, -3, 2, 0, -1, 4.5f, static_cast<float>(round)};
      CHECK_FALSE(plain.encoders.encode(0, v, bytes_plain, own_plain, stats_plain));
      CHECK(sparse.encoders.encode(0, v, bytes_sparse, own_sparse, stats_sparse, &form) == selects);
      CHECK(bytes_sparse == bytes_plain);
      CHECK(std::memcmp(own_sparse.data(), own_plain.data(), 4 * 7) == 0);
      if (!selects) continue;
      // The sparse form is the decoded vector's nonzero part, ascending.
      std::vector<float> scattered(7, 0.0f);
      for (std::size_t j = 0; j < form.positions.size(); ++j) {
        if (j > 0) CHECK(form.positions[j] > form.positions[j - 1]);
        scattered[form.positions[j]] = form.values[j];
      }
      CHECK(std::memcmp(scattered.data(), own_plain.data(), 4 * 7) == 0);
    }
    CHECK(stats_sparse.compression_error == stats_plain.compression_error);
  }
}

// EF-SignSGD (Karimireddy et al. 2019) is the scaled sign with error-feedback memory: each message is
// (||v||₁/d)·sign(v) of v = g + e, and e becomes v minus what was sent.
TEST_CASE("EF-SignSGD: scaled sign with error feedback sends the carried vector's scaled sign") {
  const std::size_t d = 50;
  Built built({{"compressor", {{"kind", "sign"}}}, {"memory", "error_feedback"}}, 1, d);
  std::vector<double> e(d, 0.0);
  std::vector<float> own(d);
  compression::Bytes bytes;
  protocols::NodeStats stats;
  Rng rng(3);
  for (int t = 0; t < 20; ++t) {
    std::vector<float> g(d);
    for (float& x : g) x = static_cast<float>(rng.normal());
    std::vector<double> v(d);
    double l1 = 0;
    for (std::size_t c = 0; c < d; ++c) {
      v[c] = g[c] + e[c];
      l1 += std::fabs(v[c]);
    }
    built.encoders.encode(0, g, bytes, own, stats);
    for (std::size_t c = 0; c < d; ++c) {
      REQUIRE(own[c] == Approx((v[c] < 0 ? -1 : 1) * l1 / d).epsilon(1e-4));
      e[c] = v[c] - own[c];
    }
  }
}

TEST_CASE("the dgc memory: momentum correction, momentum factor masking and local gradient clipping") {
  const std::vector<float> g = {1, 2, 0.5f};
  std::vector<float> own(3);
  compression::Bytes bytes;
  protocols::NodeStats stats;
  {
    Built built(
        {{"compressor", {{"kind", "topk"}, {"k", 1}}}, {"memory", {{"kind", "dgc"}, {"momentum", 0.5}}}}, 1,
        3);
    CHECK(built.resolved["memory"] ==
          json{{"kind", "dgc"}, {"momentum", 0.5}, {"clip", 0.0}, {"masking", true}});
    // u = g, v = g: sends 2 at 1; v = (1, 0, .5) and, masked, u = (1, 0, .5).
    built.encoders.encode(0, g, bytes, own, stats);
    CHECK(own == std::vector<float>{0, 2, 0});
    // u = .5u + g = (1.5, 2, .75), v = (2.5, 2, 1.25): sends 2.5 at 0; u = (0, 2, .75), v = (0, 2, 1.25).
    built.encoders.encode(0, g, bytes, own, stats);
    CHECK(own == std::vector<float>{2.5f, 0, 0});
    // u = (1, 3, .875), v = (1, 5, 2.125): sends 5 at 1.
    built.encoders.encode(0, g, bytes, own, stats);
    CHECK(own == std::vector<float>{0, 5, 0});
  }
  {
    Built built({{"compressor", {{"kind", "topk"}, {"k", 1}}},
                 {"memory", {{"kind", "dgc"}, {"momentum", 0.5}, {"masking", false}}}},
                1, 3);
    built.encoders.encode(0, g, bytes, own, stats);
    // Unmasked: u = (1.5, 3, .75), v = (2.5, 3, 1.25): sends 3 at 1.
    built.encoders.encode(0, g, bytes, own, stats);
    CHECK(own == std::vector<float>{0, 3, 0});
  }
  {
    Built built(
        {{"compressor", {{"kind", "none"}}}, {"memory", {{"kind", "dgc"}, {"momentum", 0.0}, {"clip", 1.0}}}},
        1, 3);
    // ||(3, 4, 0)|| = 5 is clipped to 1.
    built.encoders.encode(0, std::vector<float>{3, 4, 0}, bytes, own, stats);
    CHECK(own == std::vector<float>{0.6f, 0.8f, 0});
  }
}

TEST_CASE("the encoders hand the model's tensor layout to the compressor, which buckets per tensor") {
  const json protocol = {
      {"compressor", {{"kind", "qsgd"}, {"coding", "fixed"}, {"bucket", 8}, {"bucketing", "per_tensor"}}}};
  json resolved;
  const keys::Object declared{"protocol", "", protocols::Encoders::keys("test")};
  Spec spec(protocol, "test.json", "$.algorithm", resolved, declared);
  const compression::Layout layout({{2, 3}, {1, 4}});  // 6 + 4 coordinates: buckets 6 | 4, not 8 | 2
  protocols::PriceTable prices;
  protocols::Encoders encoders(spec, 1, 10, 11, nullptr, prices, layout);
  spec.finish();
  CHECK(encoders.compressor().layout().tensors().size() == 2);
  compression::Bytes bytes;
  std::vector<float> own(10);
  protocols::NodeStats stats;
  encoders.encode(0, std::vector<float>(10, 1.0f), bytes, own, stats);
  // Two norms and ten 6-bit indices either way; the first norm covers 6 coordinates: √6.
  CHECK(bytes.size() == (2 * 32 + 10 * 6 + 7) / 8);
  std::uint32_t bits = (std::uint32_t{bytes[0]} << 24) | (bytes[1] << 16) | (bytes[2] << 8) | bytes[3];
  float norm;
  std::memcpy(&norm, &bits, 4);
  CHECK(norm == static_cast<float>(std::sqrt(6.0)));
}
