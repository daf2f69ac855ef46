#pragma once
// A run's schedule (docs/schedule.md): for every node, the ordered operations it did on its port in
// quantities that do not depend on the device profile or the network — charges (price id and amount), sends
// (destination, payload bytes), silences, receives (source), waits, yields, reads of the clock — and the
// markers that tie the trace rows to positions in those sequences, with the trace rows themselves. `sgdsim
// retime` replays it under other timing settings. The file is versioned, zstd-compressed and checksummed
// (CRC-32); a reader refuses anything else with an InputError naming the file and the byte offset, never
// replays it wrong.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "algorithms/protocols/port.hpp"
#include "algorithms/protocols/prices.hpp"
#include "observation/outputs.hpp"
#include "observation/trace.hpp"

namespace sgdsim::observation {

// Version 2 added the background operations. Version 3 records the chunk work of the all-reduce collectives
// as work inside the collective's kernel (protocols::Kernel::collective): an older file says those charges
// were kernels of their own, which a live run no longer charges, so it is refused rather than re-timed
// otherwise.
inline constexpr std::uint32_t schedule_format_version = 3;
inline constexpr const char* schedule_file_name = "schedule.bin";

// What one operation of a node's sequence is.
enum class Operation : std::uint8_t {
  charge = 1,      // Port::charge(terms): the terms (price id, amount), in order
  send = 2,        // Port::send(to, bytes): to, payload bytes
  silence = 3,     // Port::send_silence(to)
  receive = 4,     // Port::receive_or_miss(from)
  wait_sends = 5,  // Port::wait_sends()
  yield = 6,       // Port::let_others_run()
  now = 7,         // Port::now() (it executes the work charged so far)
  observe = 8,     // the node handed its model to the observer at an evaluation step (a marker)
  background = 9,  // Port::start_background(pieces): the pieces (price id, amount), in order (version 2)
  await_background = 10,  // Port::await_background(count): count (version 2)
};

// The node's own figures at an observe marker that do not depend on timing.
struct ObservedLearning {
  std::int64_t step = 0;
  std::uint64_t triggers = 0;
  double compression_error = 0;
  std::uint64_t compressions = 0;
};

// One decoded operation (the fields its kind has).
struct ScheduledOperation {
  Operation kind = Operation::now;
  std::size_t peer = 0;                  // send, silence: destination; receive: source
  std::uint64_t bytes = 0;               // send: payload bytes
  std::uint64_t count = 0;               // await_background: pieces
  std::vector<protocols::Charge> terms;  // charge; background: its pieces
  ObservedLearning learning;             // observe
};

// A price the recorded run's table had: what it charged for (its rate is looked up again under the new
// settings).
using ScheduledPrice = protocols::PriceKey;

// One node's operations, appended as they happen, in the file's encoding.
class OperationLog {
 public:
  void charge(std::span<const protocols::Charge> terms);
  void send(std::size_t to, std::uint64_t bytes);
  void silence(std::size_t to);
  void receive(std::size_t from);
  void plain(Operation kind);  // wait_sends, yield, now
  void background(std::span<const protocols::Charge> pieces);
  void await_background(std::size_t count);
  void observe(const ObservedLearning& learning);
  std::uint64_t operations() const { return operations_; }
  const std::vector<std::uint8_t>& bytes() const { return bytes_; }
  std::vector<std::uint8_t>& bytes() { return bytes_; }
  void set_operations(std::uint64_t operations) { operations_ = operations; }

 private:
  std::vector<std::uint8_t> bytes_;
  std::uint64_t operations_ = 0;
};

// Reads a node's operations back, one at a time (the log was validated when the schedule was read).
class OperationCursor {
 public:
  explicit OperationCursor(const OperationLog& log) : bytes_(log.bytes()) {}
  bool done() const { return offset_ >= bytes_.size(); }
  const ScheduledOperation& next();

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t offset_ = 0;
  ScheduledOperation operation_;
};

struct Schedule {
  std::string resolved;  // the recorded run's resolved scenario (JSON text)
  std::string base_dir;  // the folder its relative paths resolve against
  RunShape shape;        // which conditional trace columns the run had
  std::vector<ScheduledPrice> prices;
  std::vector<TraceRow> rows;       // the recorded trace, row by row
  std::vector<OperationLog> nodes;  // each node's operations
  std::uint64_t operations() const;
};

// The file's bytes: header (magic, version), zstd-compressed body, CRC-32 of everything before it.
std::vector<std::uint8_t> encode_schedule(const Schedule& schedule);
// The uncompressed body alone (the fuzz target's seeds).
std::vector<std::uint8_t> encode_schedule_body(const Schedule& schedule);
// Parses and validates a whole file (every operation: known kinds, peers and price ids in range, observe
// markers matching the rows). Throws InputError naming `origin` and the byte offset on anything else.
Schedule decode_schedule(std::span<const std::uint8_t> file, const std::string& origin);
// The uncompressed body alone (for the fuzz target, which cannot forge a checksum).
Schedule decode_schedule_body(std::span<const std::uint8_t> body, const std::string& origin);
Schedule read_schedule(const std::string& path);

}  // namespace sgdsim::observation
