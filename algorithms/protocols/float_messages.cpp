#include "algorithms/protocols/float_messages.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace sgdsim::protocols {

FloatMessages::FloatMessages(const CollectiveSetup& setup, const compression::FloatFormat& format)
    : compressor_(*setup.compressor),
      clock_(setup.clock),
      format_(format),
      prices_(setup, format),
      received_(setup.dimension) {}

void FloatMessages::send(std::size_t to, std::span<const float> values, Rng& rng, Port& port) {
  Bytes bytes;
  {
    WallClock::Scope timer(clock_, WallClock::Part::compression);
    compressor_.encode_into(values, rng, bytes);
  }
  port.charge({prices_.encode, static_cast<double>(values.size())});
  port.send(to, std::move(bytes));
}

void FloatMessages::receive(std::size_t from, std::span<float> out, Port& port) {
  const std::optional<Bytes> message = port.receive(from);
  if (!message) throw std::logic_error("an all-reduce collective received silence");
  {
    WallClock::Scope timer(clock_, WallClock::Part::compression);
    compressor_.decode_into(*message, out);
  }
  port.charge({prices_.decode, static_cast<double>(out.size())});
}

std::span<float> FloatMessages::receive(std::size_t from, std::size_t size, Port& port) {
  const std::span<float> out = std::span<float>(received_).first(size);
  receive(from, out, port);
  return out;
}

std::span<float> FloatMessages::chunk(std::span<float> v, std::size_t c, std::size_t m) {
  const std::size_t length = v.size();
  c %= m;
  const std::size_t begin = c * (length / m) + std::min(c, length % m);
  return v.subspan(begin, length / m + (c < length % m ? 1 : 0));
}

void FloatMessages::reduce_scatter(std::span<float> v, const std::vector<std::size_t>& members,
                                   std::size_t position, Rng& rng, Port& port) {
  const std::size_t m = members.size(), p = position;
  if (m < 2) return;
  const std::size_t next = members[(p + 1) % m], previous = members[(p + m - 1) % m];
  for (std::size_t s = 0; s + 1 < m; ++s) {
    send(next, chunk(v, p + m - s, m), rng, port);
    const std::span<float> mine = chunk(v, p + 2 * m - s - 1, m);
    const std::span<const float> partial = receive(previous, mine.size(), port);
    for (std::size_t c = 0; c < mine.size(); ++c) mine[c] += partial[c];
    format_.round(mine);
    port.charge({prices_.mixing, 3.0 * static_cast<double>(mine.size())});
  }
}

void FloatMessages::all_gather(std::span<float> v, const std::vector<std::size_t>& members,
                               std::size_t position, Rng& rng, Port& port) {
  const std::size_t m = members.size(), p = position;
  if (m < 2) return;
  const std::size_t next = members[(p + 1) % m], previous = members[(p + m - 1) % m];
  for (std::size_t s = 0; s + 1 < m; ++s) {
    send(next, chunk(v, p + 1 + m - s, m), rng, port);
    const std::span<float> target = chunk(v, p + m - s, m);
    const std::span<const float> finished = receive(previous, target.size(), port);
    std::copy(finished.begin(), finished.end(), target.begin());
    port.charge({prices_.mixing, 2.0 * static_cast<double>(target.size())});
  }
}

}  // namespace sgdsim::protocols
