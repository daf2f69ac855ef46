#pragma once
// The QSGD family (QSGD, QSGDinf, NUQSGD): per bucket one float32 norm, then every coordinate stochastically
// rounded on a level table (level_table.hpp), coded either sparsely (QSGD's Elias code) or at fixed width.
// Formats and options: docs/compression.md.
#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/elias.hpp"
#include "algorithms/compression/level_table.hpp"

namespace sgdsim::compression {

enum class Norm { l2, max_abs };
// zstd: the symbols at a byte each (norms, then level indices), compressed as one zstd frame.
enum class Coding { elias, fixed, zstd };
// Which variance bound (docs/algorithms.md §2) applies: it sets the contractive scale.
enum class TableKind { paper_uniform, paper_exponential, code_uniform, code_exponential };

struct QuantizerConfig {
  std::string method = "qsgd";  // for error messages
  Norm norm = Norm::l2;
  TableKind table = TableKind::paper_uniform;
  int levels = 16;     // s for paper tables, bits for code tables
  double ratio = 0.5;  // p of the exponential tables
  Coding coding = Coding::elias;
  EliasCode elias = EliasCode::omega;
  std::size_t bucket = 8192;  // 0: one bucket for the whole vector (or tensor)
  bool per_tensor = false;    // buckets never span two tensors of the layout()
  int zstd_level = 3;         // coding zstd: the compression level
  bool contractive = false;   // divide the output by tau = 1 + variance_factor(bucket size)
};

class Quantizer final : public Compressor {
 public:
  explicit Quantizer(QuantizerConfig config);

  void encode_into(std::span<const float> values, Rng& rng, Bytes& out) const override;
  void decode_from(std::span<const std::uint8_t> message, std::size_t start,
                   std::span<float> out) const override;

  // beta(n) with E||Q(x) - x||^2 <= beta(n) ||x||^2 for a bucket of n coordinates; with bucketing the bound
  // of the largest bucket holds for the whole vector. QSGD: min(n/s^2, sqrt(n)/s) (the bound CHOCO's tau
  // uses); QSGDinf: min(n/(4s^2), sqrt(n)/s); NUQSGD: (1-p)^2/(4p) + min(n p^(2s)/4, sqrt(n) p^s); code
  // tables: n*gap^2/4 (uniform) and (1-p)^2/(4p) + n p^(2(K-1)) (exponential, K = 2^(bits-1)).
  double variance_factor(std::size_t n) const;
  // The factor applied to decoded values of a d-vector: 1, or 1/tau with `scale: contractive`.
  float output_scale(std::size_t dimension) const;
  // The decoded values encode() would produce with the same Rng state, without coding them (tests, tools).
  void quantize(std::span<const float> values, Rng& rng, std::span<float> out) const;
  // The symbols encode() would code with the same Rng state: per coordinate its signed level index, and per
  // bucket its norm (tools measure their empirical entropy).
  void symbols(std::span<const float> values, Rng& rng, std::vector<std::uint16_t>& indices,
               std::vector<float>& norms) const;
  // The empirical entropy in bits of those symbols: n·H(level indices) + 32 per bucket norm.
  double entropy_bits(std::span<const float> values, Rng& rng) const;
  // Scaler sharing (TernGrad, Wen et al. 2017), for max-abs norms at fixed width: each bucket's scale
  // max |x_i| in bucket order, and the encoding with given scales, each at least its bucket's max |x_i| (the
  // rounding stays unbiased), written as the bucket's scale. Workers that encode with the maximum of their
  // scales send levels that agree.
  bool shares_scales() const { return config_.norm == Norm::max_abs && config_.coding == Coding::fixed; }
  void bucket_scales(std::span<const float> values, std::vector<float>& scales) const;
  void encode_with_scales(std::span<const float> values, std::span<const float> scales, Rng& rng,
                          Bytes& out) const;
  // Calls f(begin, n) for every bucket of a d-vector in order: flat, or within each tensor of layout().
  template <typename F>
  void for_each_bucket(std::size_t dimension, F&& f) const;

  const QuantizerConfig& config() const { return config_; }
  const LevelTable& table() const { return table_; }

 private:
  // The largest bucket of a d-vector (what the contractive scale is computed for).
  std::size_t bucket_size(std::size_t dimension) const;
  // The length of the byte-per-symbol stream coding "zstd" compresses, for a d-vector.
  std::size_t symbol_stream_bytes(std::size_t dimension) const;
  void encode_zstd(std::span<const float> values, Rng& rng, Bytes& out) const;
  void encode_fixed(std::span<const float> values, Rng& rng, Bytes& out) const;
  void decode_fixed(std::span<const std::uint8_t> message, std::size_t start, std::span<float> out,
                    const char* name) const;
  void decode_zstd(std::span<const std::uint8_t> message, std::size_t start, std::span<float> out) const;
  // Rounds one bucket into level indices; returns its float32 norm (0 leaves `indices` at the zero level).
  float round_bucket(std::span<const float> values, Rng& rng, std::uint16_t* indices) const;
  // `scale`: the bucket's norm, or, when not negative, the given (shared) scale.
  void encode_fixed_bucket(std::span<const float> values, Rng& rng, BitWriter& writer,
                           float scale = -1.0f) const;
  void decode_bucket_fixed(BitReader& in, std::span<float> out, float scale) const;
  void decode_bucket_elias(BitReader& in, std::span<float> out, float scale) const;

  QuantizerConfig config_;
  LevelTable table_;
  std::uint16_t zero_index_;  // the level 0, or on zero-free tables the index a zero bucket is written with
};

template <typename F>
void Quantizer::for_each_bucket(std::size_t d, F&& f) const {
  const auto tensors = layout().tensors();
  const bool per_tensor = config_.per_tensor && !tensors.empty() && layout().dimension() == d;
  std::size_t begin = 0;
  for (std::size_t t = 0; t < (per_tensor ? tensors.size() : 1); ++t) {
    const std::size_t size = per_tensor ? tensors[t].size() : d;
    const std::size_t bucket = config_.bucket == 0 ? size : std::min(config_.bucket, size);
    for (std::size_t offset = 0; offset < size; offset += bucket)
      f(begin + offset, std::min(bucket, size - offset));
    begin += size;
  }
}

}  // namespace sgdsim::compression
