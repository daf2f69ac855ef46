// libFuzzer target: the schedule reader of `sgdsim retime` (observation/schedule.hpp) on arbitrary bytes. The
// first byte chooses what the rest is: a whole file, whose CRC-32 is made right first so that the fuzzer gets
// past it, or an uncompressed body. A validated schedule or an InputError are the only acceptable outcomes;
// a validated one must then decode operation by operation without leaving its bytes.
//
// With SGDSIM_FUZZ_SEEDS=DIR in the environment the target writes a small valid schedule to DIR, as a file
// and as a body, and exits (tools/fuzz.sh makes the seed corpus that way).
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "observation/schedule.hpp"

namespace {
void write_seeds(const std::string& dir) {
  using namespace sgdsim;
  observation::Schedule schedule;
  schedule.resolved = R"({"seed": 1})";
  schedule.base_dir = "/";
  schedule.prices = {{protocols::Work::gradient, protocols::Unit::passes, "{}"},
                     {protocols::Work::mixing, protocols::Unit::floats, "{}"}};
  observation::TraceRow row;
  row.test_accuracy = 0.5;
  schedule.rows = {row};
  row.step = 1;
  row.triggers = 2;
  row.compression_error = 0.25;
  schedule.rows.push_back(row);
  schedule.nodes.resize(3);
  for (std::size_t i = 0; i < 3; ++i) {
    observation::OperationLog& log = schedule.nodes[i];
    log.observe({0, 0, 0, 0});
    const protocols::Charge terms[] = {{0, 1.0}, {0, 2.5}};
    log.charge(terms);
    log.send((i + 1) % 3, 4000);
    log.silence((i + 2) % 3);
    log.receive((i + 2) % 3);
    log.receive((i + 1) % 3);
    log.plain(observation::Operation::yield);
    log.plain(observation::Operation::wait_sends);
    log.plain(observation::Operation::now);
    log.observe({1, 1, 0.5, 2});
  }
  const auto write = [&](const std::string& name, std::uint8_t form, const std::vector<std::uint8_t>& bytes) {
    std::ofstream out(dir + "/" + name, std::ios::binary);
    out.put(static_cast<char>(form));
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  };
  write("file", 1, observation::encode_schedule(schedule));
  write("body", 0, observation::encode_schedule_body(schedule));
}
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("SGDSIM_FUZZ_SEEDS")) {
    write_seeds(dir);
    std::exit(0);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool whole_file = data[0] & 1;
  std::vector<std::uint8_t> input(data + 1, data + size);
  try {
    sgdsim::observation::Schedule schedule;
    if (whole_file) {
      if (input.size() >= 4) {
        const uLong crc = crc32_z(crc32(0L, Z_NULL, 0), input.data(), input.size() - 4);
        for (int b = 0; b < 4; ++b) input[input.size() - 4 + b] = static_cast<std::uint8_t>(crc >> (8 * b));
      }
      schedule = sgdsim::observation::decode_schedule(input, "fuzz.bin");
    } else {
      schedule = sgdsim::observation::decode_schedule_body(input, "fuzz.bin");
    }
    for (const auto& node : schedule.nodes) {
      sgdsim::observation::OperationCursor cursor(node);
      std::uint64_t count = 0;
      while (!cursor.done()) {
        cursor.next();
        ++count;
      }
      if (count != node.operations()) std::abort();
    }
  } catch (const sgdsim::InputError&) {
  }
  return 0;
}
