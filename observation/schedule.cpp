#include "observation/schedule.hpp"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>

#include "common/error.hpp"
#include "common/regular_file.hpp"

namespace sgdsim::observation {
namespace {

constexpr std::array<std::uint8_t, 8> magic = {'S', 'G', 'D', 'S', 'C', 'H', 'E', 'D'};
constexpr std::size_t header_bytes = 8 + 4 + 8 + 8;  // magic, version, body size, compressed size
constexpr std::size_t max_terms = 1024;              // terms of one charge (a protocol charges a handful)
constexpr std::size_t max_pieces = 1 << 16;          // pieces of background work (a model's tensors)
// The largest body a header may declare (the body is decompressed a piece at a time, so this is not allocated
// up front).
constexpr std::uint64_t max_body_bytes = std::uint64_t{1} << 38;
constexpr int compression_level = 9;

void put_varint(std::vector<std::uint8_t>& out, std::uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(value));
}

void put_fixed(std::vector<std::uint8_t>& out, std::uint64_t value, int bytes) {
  for (int b = 0; b < bytes; ++b) out.push_back(static_cast<std::uint8_t>(value >> (8 * b)));
}

void put_double(std::vector<std::uint8_t>& out, double value) {
  put_fixed(out, std::bit_cast<std::uint64_t>(value), 8);
}

void put_string(std::vector<std::uint8_t>& out, const std::string& text) {
  put_varint(out, text.size());
  out.insert(out.end(), text.begin(), text.end());
}

// Reads the body's encoding; every failure names the origin and the offset.
class Reader {
 public:
  Reader(std::span<const std::uint8_t> bytes, std::string origin, std::size_t base = 0)
      : bytes_(bytes), origin_(std::move(origin)), base_(base) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(origin_ + ": byte " + std::to_string(base_ + offset_) + ": " + what);
  }
  bool done() const { return offset_ >= bytes_.size(); }
  std::size_t offset() const { return offset_; }
  std::uint8_t byte() {
    if (offset_ >= bytes_.size()) fail("truncated (the data ends early)");
    return bytes_[offset_++];
  }
  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const std::uint8_t b = byte();
      if (shift == 63 && b > 1) fail("a number does not fit in 64 bits");
      value |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return value;
    }
    fail("a number does not fit in 64 bits");
  }
  std::uint64_t count(std::uint64_t limit, const char* what) {
    const std::uint64_t n = varint();
    if (n > limit) fail(std::string("too many ") + what + " (" + std::to_string(n) + ")");
    return n;
  }
  std::uint64_t fixed(int bytes) {
    if (bytes_.size() - offset_ < static_cast<std::size_t>(bytes)) fail("truncated (the data ends early)");
    std::uint64_t value = 0;
    for (int b = 0; b < bytes; ++b) value |= static_cast<std::uint64_t>(bytes_[offset_++]) << (8 * b);
    return value;
  }
  double real() { return std::bit_cast<double>(fixed(8)); }
  std::string string() {
    const std::uint64_t n = varint();
    if (n > bytes_.size() - offset_) fail("truncated (a text longer than what is left)");
    std::string text(reinterpret_cast<const char*>(bytes_.data() + offset_), n);
    offset_ += n;
    return text;
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::string origin_;
  std::size_t base_;
  std::size_t offset_ = 0;
};

// Row flags: which optional members of a TraceRow are present.
enum RowFlag : std::uint8_t {
  has_triggers = 1,
  has_test_accuracy = 2,
  has_suboptimality = 4,
  has_compression_error = 8,
  has_failures = 16,
  has_variance = 32,
  has_sampling = 64,
  has_estimator = 128,
};

void put_row(std::vector<std::uint8_t>& out, const TraceRow& row) {
  std::uint8_t flags = 0;
  if (row.triggers) flags |= has_triggers;
  if (row.test_accuracy) flags |= has_test_accuracy;
  if (row.suboptimality) flags |= has_suboptimality;
  if (row.compression_error) flags |= has_compression_error;
  if (row.failures) flags |= has_failures;
  if (row.variance) {
    flags |= has_variance;
    if (row.variance->sampling) flags |= has_sampling;
    if (row.variance->estimator) flags |= has_estimator;
  }
  out.push_back(flags);
  put_varint(out, static_cast<std::uint64_t>(row.step));
  put_double(out, row.sim_time_s);
  put_varint(out, row.bits_sent);
  put_varint(out, row.bytes_on_wire);
  put_varint(out, row.messages);
  if (row.triggers) put_varint(out, *row.triggers);
  put_double(out, row.train_loss);
  if (row.test_accuracy) put_double(out, *row.test_accuracy);
  put_double(out, row.consensus_distance);
  if (row.suboptimality) put_double(out, *row.suboptimality);
  if (row.compression_error) put_double(out, *row.compression_error);
  for (double seconds : row.work_s) put_double(out, seconds);
  put_double(out, row.communication_s);
  if (row.failures) {
    put_varint(out, row.failures->messages_lost);
    put_varint(out, row.failures->receives_timed_out);
    put_varint(out, row.failures->nodes_down);
  }
  if (row.variance && row.variance->sampling) put_double(out, *row.variance->sampling);
  if (row.variance && row.variance->estimator) put_double(out, *row.variance->estimator);
}

TraceRow get_row(Reader& in) {
  TraceRow row;
  const std::uint8_t flags = in.byte();
  if (!(flags & has_variance) && (flags & (has_sampling | has_estimator))) in.fail("inconsistent row flags");
  const std::uint64_t step = in.varint();
  if (step > static_cast<std::uint64_t>(INT64_MAX)) in.fail("a step out of range");
  row.step = static_cast<std::int64_t>(step);
  row.sim_time_s = in.real();
  row.bits_sent = in.varint();
  row.bytes_on_wire = in.varint();
  row.messages = in.varint();
  if (flags & has_triggers) row.triggers = in.varint();
  row.train_loss = in.real();
  if (flags & has_test_accuracy) row.test_accuracy = in.real();
  row.consensus_distance = in.real();
  if (flags & has_suboptimality) row.suboptimality = in.real();
  if (flags & has_compression_error) row.compression_error = in.real();
  for (double& seconds : row.work_s) seconds = in.real();
  row.communication_s = in.real();
  if (flags & has_failures) {
    // Assigned, not emplace()d: clang 14 deems the nested aggregate not default-constructible.
    row.failures = TraceRow::Failures{};
    row.failures->messages_lost = in.varint();
    row.failures->receives_timed_out = in.varint();
    row.failures->nodes_down = in.varint();
  }
  if (flags & has_variance) {
    row.variance.emplace();
    if (flags & has_sampling) row.variance->sampling = in.real();
    if (flags & has_estimator) row.variance->estimator = in.real();
  }
  return row;
}

// Decodes one operation; `nodes` and `prices` bound what it may name (0: not checked, for the cursor).
void get_operation(Reader& in, ScheduledOperation& op, std::size_t self, std::size_t nodes,
                   const std::vector<ScheduledPrice>* prices) {
  const std::uint8_t kind = in.byte();
  if (kind < static_cast<std::uint8_t>(Operation::charge) ||
      kind > static_cast<std::uint8_t>(Operation::await_background))
    in.fail("unknown operation " + std::to_string(kind));
  op.kind = static_cast<Operation>(kind);
  const auto peer = [&] {
    const std::uint64_t p = in.varint();
    if (nodes > 0 && (p >= nodes || p == self))
      in.fail("node " + std::to_string(self) + " names peer " + std::to_string(p));
    return static_cast<std::size_t>(p);
  };
  switch (op.kind) {
    case Operation::charge:
    case Operation::background: {
      const bool charge = op.kind == Operation::charge;
      const std::uint64_t n = charge ? in.count(max_terms, "terms in one charge")
                                     : in.count(max_pieces, "pieces of background work");
      if (n == 0 && charge) in.fail("a charge without terms");
      op.terms.resize(n);
      for (protocols::Charge& term : op.terms) {
        const std::uint64_t price = in.varint();
        term.amount = in.real();
        if (prices) {
          if (price >= prices->size()) in.fail("an unknown price id " + std::to_string(price));
          if (!(term.amount >= 0) || !std::isfinite(term.amount))
            in.fail("a charge amount that is not finite");
        }
        term.price = static_cast<protocols::PriceId>(price);
      }
      if (prices && charge) {
        for (const protocols::Charge& term : op.terms)
          if ((*prices)[term.price].work != (*prices)[op.terms.front().price].work)
            in.fail("a charge mixes kinds of work");
      }
      break;
    }
    case Operation::send:
      op.peer = peer();
      op.bytes = in.varint();
      if (op.bytes > (std::uint64_t{1} << 40)) in.fail("a message larger than 1 TiB");
      break;
    case Operation::silence:
    case Operation::receive:
      op.peer = peer();
      break;
    case Operation::await_background:
      op.count = in.count(max_pieces, "pieces of background work awaited");
      break;
    case Operation::observe: {
      const std::uint64_t step = in.varint();
      if (step > static_cast<std::uint64_t>(INT64_MAX)) in.fail("a step out of range");
      op.learning.step = static_cast<std::int64_t>(step);
      op.learning.triggers = in.varint();
      op.learning.compression_error = in.real();
      op.learning.compressions = in.varint();
      break;
    }
    default:
      break;
  }
}

}  // namespace

void OperationLog::charge(std::span<const protocols::Charge> terms) {
  bytes_.push_back(static_cast<std::uint8_t>(Operation::charge));
  put_varint(bytes_, terms.size());
  for (const protocols::Charge& term : terms) {
    put_varint(bytes_, term.price);
    put_double(bytes_, term.amount);
  }
  ++operations_;
}

void OperationLog::send(std::size_t to, std::uint64_t bytes) {
  bytes_.push_back(static_cast<std::uint8_t>(Operation::send));
  put_varint(bytes_, to);
  put_varint(bytes_, bytes);
  ++operations_;
}

void OperationLog::silence(std::size_t to) {
  bytes_.push_back(static_cast<std::uint8_t>(Operation::silence));
  put_varint(bytes_, to);
  ++operations_;
}

void OperationLog::receive(std::size_t from) {
  bytes_.push_back(static_cast<std::uint8_t>(Operation::receive));
  put_varint(bytes_, from);
  ++operations_;
}

void OperationLog::background(std::span<const protocols::Charge> pieces) {
  bytes_.push_back(static_cast<std::uint8_t>(Operation::background));
  put_varint(bytes_, pieces.size());
  for (const protocols::Charge& piece : pieces) {
    put_varint(bytes_, piece.price);
    put_double(bytes_, piece.amount);
  }
  ++operations_;
}

void OperationLog::await_background(std::size_t count) {
  bytes_.push_back(static_cast<std::uint8_t>(Operation::await_background));
  put_varint(bytes_, count);
  ++operations_;
}

void OperationLog::plain(Operation kind) {
  bytes_.push_back(static_cast<std::uint8_t>(kind));
  ++operations_;
}

void OperationLog::observe(const ObservedLearning& learning) {
  bytes_.push_back(static_cast<std::uint8_t>(Operation::observe));
  put_varint(bytes_, static_cast<std::uint64_t>(learning.step));
  put_varint(bytes_, learning.triggers);
  put_double(bytes_, learning.compression_error);
  put_varint(bytes_, learning.compressions);
  ++operations_;
}

const ScheduledOperation& OperationCursor::next() {
  Reader in(bytes_.subspan(offset_), "schedule");
  get_operation(in, operation_, 0, 0, nullptr);
  offset_ += in.offset();
  return operation_;
}

std::uint64_t Schedule::operations() const {
  std::uint64_t total = 0;
  for (const OperationLog& node : nodes) total += node.operations();
  return total;
}

std::vector<std::uint8_t> encode_schedule_body(const Schedule& schedule) {
  std::vector<std::uint8_t> body;
  put_string(body, schedule.resolved);
  put_string(body, schedule.base_dir);
  body.push_back(
      static_cast<std::uint8_t>((schedule.shape.failures ? 1 : 0) | (schedule.shape.variance_draws ? 2 : 0)));
  put_varint(body, schedule.prices.size());
  for (const ScheduledPrice& price : schedule.prices) {
    body.push_back(static_cast<std::uint8_t>(price.work));
    body.push_back(static_cast<std::uint8_t>(price.unit));
    put_string(body, price.subject);
  }
  put_varint(body, schedule.rows.size());
  for (const TraceRow& row : schedule.rows) put_row(body, row);
  put_varint(body, schedule.nodes.size());
  for (const OperationLog& node : schedule.nodes) {
    put_varint(body, node.operations());
    put_varint(body, node.bytes().size());
    body.insert(body.end(), node.bytes().begin(), node.bytes().end());
  }
  return body;
}

std::vector<std::uint8_t> encode_schedule(const Schedule& schedule) {
  const std::vector<std::uint8_t> body = encode_schedule_body(schedule);
  std::vector<std::uint8_t> file(magic.begin(), magic.end());
  put_fixed(file, schedule_format_version, 4);
  put_fixed(file, body.size(), 8);
  const std::size_t size_at = file.size();
  put_fixed(file, 0, 8);
  const std::size_t bound = ZSTD_compressBound(body.size());
  file.resize(header_bytes + bound);
  const std::size_t compressed =
      ZSTD_compress(file.data() + header_bytes, bound, body.data(), body.size(), compression_level);
  if (ZSTD_isError(compressed))
    throw std::runtime_error(std::string("compressing the schedule: ") + ZSTD_getErrorName(compressed));
  file.resize(header_bytes + compressed);
  for (int b = 0; b < 8; ++b) file[size_at + b] = static_cast<std::uint8_t>(compressed >> (8 * b));
  const uLong crc = crc32_z(crc32(0L, Z_NULL, 0), file.data(), file.size());
  put_fixed(file, crc, 4);
  return file;
}

Schedule decode_schedule_body(std::span<const std::uint8_t> body, const std::string& origin) {
  Reader in(body, origin + " (body)");
  Schedule schedule;
  schedule.resolved = in.string();
  schedule.base_dir = in.string();
  const std::uint8_t shape = in.byte();
  if (shape > 3) in.fail("unknown run shape flags");
  schedule.shape.failures = shape & 1;
  schedule.shape.variance_draws = shape & 2;
  const std::uint64_t prices = in.count(body.size(), "prices");
  for (std::uint64_t p = 0; p < prices; ++p) {
    ScheduledPrice price;
    const std::uint8_t work = in.byte();
    if (work >= protocols::work_kinds) in.fail("unknown kind of work " + std::to_string(work));
    const std::uint8_t unit = in.byte();
    if (unit > static_cast<std::uint8_t>(protocols::Unit::floats))
      in.fail("unknown unit " + std::to_string(unit));
    price.work = static_cast<protocols::Work>(work);
    price.unit = static_cast<protocols::Unit>(unit);
    price.subject = in.string();
    schedule.prices.push_back(std::move(price));
  }
  const std::uint64_t rows = in.count(body.size(), "rows");
  if (rows == 0) in.fail("a schedule without trace rows");
  for (std::uint64_t r = 0; r < rows; ++r) {
    schedule.rows.push_back(get_row(in));
    if (r > 0 && schedule.rows[r].step <= schedule.rows[r - 1].step) in.fail("trace rows out of step order");
    if ((schedule.rows[r].variance.has_value()) != schedule.shape.variance_draws ||
        schedule.rows[r].failures.has_value() != schedule.shape.failures)
      in.fail("a trace row that does not have the run's columns");
  }
  const std::uint64_t nodes = in.count(body.size(), "nodes");
  if (nodes == 0) in.fail("a schedule without nodes");
  for (std::uint64_t i = 0; i < nodes; ++i) {
    OperationLog log;
    const std::uint64_t operations = in.varint();
    const std::uint64_t length = in.varint();
    if (length > body.size() - in.offset())
      in.fail("truncated (node " + std::to_string(i) + "'s operations)");
    const std::size_t start = in.offset();
    Reader ops(body.subspan(start, length), origin + " (body)", start);
    ScheduledOperation op;
    std::uint64_t count = 0;
    std::size_t row = 0;
    // The pieces of the last background start, and how many of them were awaited (the port's rules).
    std::uint64_t pieces = 0, awaited = 0;
    while (!ops.done()) {
      get_operation(ops, op, i, nodes, &schedule.prices);
      ++count;
      if (op.kind == Operation::background) {
        if (awaited < pieces)
          ops.fail("node " + std::to_string(i) +
                   " starts background work before "
                   "awaiting the previous one");
        pieces = op.terms.size();
        awaited = 0;
      } else if (op.kind == Operation::await_background) {
        if (op.count > pieces)
          ops.fail("node " + std::to_string(i) + " awaits " + std::to_string(op.count) +
                   " pieces of background work but started " + std::to_string(pieces));
        awaited = std::max(awaited, op.count);
      }
      if (op.kind == Operation::observe) {
        if (row >= schedule.rows.size() || op.learning.step != schedule.rows[row].step)
          ops.fail("node " + std::to_string(i) + " observes step " + std::to_string(op.learning.step) +
                   ", which is not the next trace row's");
        ++row;
      }
    }
    if (count != operations)
      in.fail("node " + std::to_string(i) + " declares " + std::to_string(operations) +
              " operations but has " + std::to_string(count));
    if (row != schedule.rows.size())
      in.fail("node " + std::to_string(i) + " observes " + std::to_string(row) + " of the " +
              std::to_string(schedule.rows.size()) + " trace rows");
    log.bytes().assign(body.begin() + static_cast<std::ptrdiff_t>(start),
                       body.begin() + static_cast<std::ptrdiff_t>(start + length));
    log.set_operations(operations);
    for (std::uint64_t skip = 0; skip < length; ++skip) in.byte();
    schedule.nodes.push_back(std::move(log));
  }
  if (!in.done()) in.fail("unexpected bytes after the last node");
  return schedule;
}

Schedule decode_schedule(std::span<const std::uint8_t> file, const std::string& origin) {
  Reader in(file, origin);
  if (file.size() < header_bytes + 4 || !std::equal(magic.begin(), magic.end(), file.begin()))
    throw InputError(origin + ": not an sgdsim schedule (it does not start with \"SGDSCHED\")");
  for (int b = 0; b < 8; ++b) in.byte();
  const auto version = static_cast<std::uint32_t>(in.fixed(4));
  if (version != schedule_format_version)
    in.fail("schedule format version " + std::to_string(version) + ", but this sgdsim reads version " +
            std::to_string(schedule_format_version) + " only; record the run again with this sgdsim");
  const std::uint64_t body_size = in.fixed(8);
  const std::uint64_t compressed = in.fixed(8);
  if (compressed != file.size() - header_bytes - 4)
    in.fail("the header declares " + std::to_string(compressed) + " compressed bytes but the file has " +
            std::to_string(file.size() - header_bytes - 4) + " (truncated or appended to)");
  const std::size_t crc_at = file.size() - 4;
  std::uint32_t stored = 0;
  for (int b = 0; b < 4; ++b) stored |= static_cast<std::uint32_t>(file[crc_at + b]) << (8 * b);
  const uLong crc = crc32_z(crc32(0L, Z_NULL, 0), file.data(), crc_at);
  if (crc != stored)
    throw InputError(origin + ": byte " + std::to_string(crc_at) +
                     ": checksum mismatch (the file is corrupt)");
  if (body_size > max_body_bytes)
    in.fail("the header declares an implausible body size " + std::to_string(body_size));
  // Decompressed a piece at a time into a buffer that grows with what actually comes out (a corrupt header
  // cannot make it allocate the size it declares), and never past the declared size.
  std::vector<std::uint8_t> body(std::min<std::uint64_t>(body_size, 1 << 20));
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> context(ZSTD_createDCtx(), ZSTD_freeDCtx);
  ZSTD_inBuffer input{file.data() + header_bytes, compressed, 0};
  ZSTD_outBuffer output{body.data(), body.size(), 0};
  const auto broken = [&](const std::string& why) {
    throw InputError(origin + ": byte " + std::to_string(header_bytes + input.pos) +
                     ": the compressed body is corrupt (" + why + ")");
  };
  for (;;) {
    const std::size_t left = ZSTD_decompressStream(context.get(), &output, &input);
    if (ZSTD_isError(left)) broken(ZSTD_getErrorName(left));
    if (left == 0) break;  // the frame is complete
    if (output.pos == output.size) {
      if (body.size() == body_size)
        broken("it decompresses to more than the " + std::to_string(body_size) + " bytes declared");
      body.resize(std::min<std::uint64_t>(body_size, 2 * body.size()));
      output.dst = body.data();
      output.size = body.size();
    } else if (input.pos == input.size) {
      broken("it ends before its frame does");
    }
  }
  if (output.pos != body_size || input.pos != input.size)
    broken("it decompresses to " + std::to_string(output.pos) + " bytes, not the " +
           std::to_string(body_size) + " declared");
  return decode_schedule_body(body, origin);
}

Schedule read_schedule(const std::string& path) {
  require_regular_file(path, std::uint64_t{1} << 36);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read the schedule");
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return decode_schedule(bytes, path);
}

}  // namespace sgdsim::observation
