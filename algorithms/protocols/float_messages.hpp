#pragma once
// The messages of the all-reduce collectives that add partial sums on the way (ring_allreduce,
// hierarchical_allreduce, recursive_doubling): float vectors in the workers' float format, each encode and
// decode charged at that format's price, and the ring passes of reduce-scatter and all-gather over chunks.
#include <cstddef>
#include <span>
#include <vector>

#include "algorithms/protocols/collective.hpp"

namespace sgdsim::protocols {

class FloatMessages {
 public:
  FloatMessages(const CollectiveSetup& setup, const compression::FloatFormat& format);

  // Encodes `values` in the format and sends them to `to`.
  void send(std::size_t to, std::span<const float> values, Rng& rng, Port& port);
  // The next message from `from` decoded into `out` (its length must match).
  void receive(std::size_t from, std::span<float> out, Port& port);
  // The next message from `from`, of `size` floats, decoded into the shared scratch: valid until this node's
  // next Port call (all nodes share it; none reads it after yielding).
  std::span<float> receive(std::size_t from, std::size_t size, Port& port);

  // Chunk c mod m of `v` cut into m near-equal chunks: chunk c starts at c·⌊L/m⌋ + min(c, L mod m), and the
  // first L mod m chunks have one coordinate more (with L < m the last m − L are empty; their messages still
  // cost a latency and, with headers, a header).
  static std::span<float> chunk(std::span<float> v, std::size_t c, std::size_t m);

  // The two passes of a ring all-reduce among `members` (node ids in ring order; this node at `position`)
  // on `v` cut into members.size() chunks. Every partial sum is rounded to the format; each chunk is summed
  // once, by one node, and copied byte for byte to the others, so every member ends with the same floats.
  // Reduce-scatter, step s = 0 … m − 2: position p sends its partial sum of chunk p − s and adds its own
  // values to the partial sum of chunk p − s − 1 it receives; at the end it holds chunk p + 1 summed.
  void reduce_scatter(std::span<float> v, const std::vector<std::size_t>& members, std::size_t position,
                      Rng& rng, Port& port);
  // All-gather, step s = 0 … m − 2: position p sends the finished chunk p + 1 − s and stores the finished
  // chunk p − s it receives.
  void all_gather(std::span<float> v, const std::vector<std::size_t>& members, std::size_t position, Rng& rng,
                  Port& port);

  const ChunkPrices& prices() const { return prices_; }
  const compression::FloatFormat& format() const { return format_; }

 private:
  const compression::Compressor& compressor_;
  WallClock* clock_;
  const compression::FloatFormat& format_;
  ChunkPrices prices_;
  std::vector<float> received_;
};

}  // namespace sgdsim::protocols
