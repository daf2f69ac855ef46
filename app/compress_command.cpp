// `sgdsim compress`: runs one compressor on the user's own vector (a gradient dump) and reports what it costs
// on the wire and what it loses: mean bits over R encodings and the mean relative squared error. The R calls
// are those of one sender: a stateful kind (e.g. signum's momentum) carries its state from call to call.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/compression/compressor.hpp"
#include "algorithms/compression/quantizer.hpp"
#include "app/commands.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/npy.hpp"
#include "common/regular_file.hpp"
#include "common/rng.hpp"
#include "common/spec.hpp"

namespace sgdsim::app {

namespace {

bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Raw little-endian float32, or .npy float32 (recognised by its magic).
std::vector<float> read_vector(const std::string& path) {
  const std::vector<std::uint8_t> bytes = read_regular_file_bytes(path, max_vector_file_bytes);
  std::size_t start = 0, count;
  if (has_npy_magic(bytes) || has_suffix(path, ".npy")) {
    const NpyLayout layout = parse_npy(bytes, path);  // throws for a .npy name without the magic
    start = layout.data_offset;
    count = static_cast<std::size_t>(layout.count);
  } else {
    if (bytes.size() % 4 != 0)
      throw InputError(path + ": raw float32 input must be a multiple of 4 bytes long; it has " +
                       std::to_string(bytes.size()) + " (the last value starts at byte offset " +
                       std::to_string(bytes.size() / 4 * 4) + ")");
    count = bytes.size() / 4;
  }
  if (count == 0) throw InputError(path + ": the vector is empty");
  std::vector<float> values(count);
  std::memcpy(values.data(), bytes.data() + start, 4 * count);
  for (std::size_t i = 0; i < count; ++i) {
    if (!std::isfinite(values[i]))
      throw InputError(path + ": value " + std::to_string(i) + " (byte offset " +
                       std::to_string(start + 4 * i) + ") is not finite");
  }
  return values;
}

// For the quantizers: the empirical (order-0) entropy of the first encoding's level indices plus its 32-bit
// norms, per coordinate — the floor no coding of those symbols taken one at a time can beat.
std::optional<double> entropy_floor(const compression::Compressor& compressor, std::span<const float> values,
                                    const Rng& rng) {
  const auto* quantizer = dynamic_cast<const compression::Quantizer*>(&compressor);
  if (!quantizer || values.empty()) return std::nullopt;
  Rng same = rng;
  return quantizer->entropy_bits(values, same) / static_cast<double>(values.size());
}

// Writes atomically (common/atomic_file.hpp): a device or FIFO is written through, never replaced.
void write_vector(const std::string& path, const std::vector<float>& values) {
  std::string header;
  if (has_suffix(path, ".npy")) {
    std::string dict =
        "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(values.size()) + ",), }";
    // Magic (6) + version (2) + length (2) + dict + newline, padded with spaces to a multiple of 64.
    while ((10 + dict.size() + 1) % 64 != 0) dict += ' ';
    dict += '\n';
    header = std::string("\x93NUMPY\x01\x00", 8);
    header += static_cast<char>(dict.size() & 0xFF);
    header += static_cast<char>(dict.size() >> 8);
    header += dict;
  }
  std::string content = header;
  content.append(reinterpret_cast<const char*>(values.data()), 4 * values.size());
  write_file_atomically(path, content);
}

}  // namespace

void add_compress_command(CLI::App& root) {
  auto* cmd = root.add_subcommand(
      "compress", "Compress a vector R times and report mean bits and mean relative squared error");
  struct Options {
    std::string compressor, input, output;
    std::uint64_t seed = 1;
    std::size_t repeat = 1;
    bool json = false;
  };
  auto options = std::make_shared<Options>();
  cmd->add_option(
         "--compressor", options->compressor,
         "Compressor object as JSON text (e.g. '{\"kind\": \"qsgd\", \"levels\": 4}') or a JSON file")
      ->required();
  cmd->add_option("--input", options->input, "The vector: raw little-endian float32, or a float32 .npy file")
      ->required();
  cmd->add_option("--seed", options->seed, "Seed of the compressor's random stream")->capture_default_str();
  cmd->add_option("--repeat", options->repeat,
                  "Encodings to average over, in succession by one sender (a stateful compressor carries its "
                  "state from one to the next)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40))
      ->capture_default_str();
  cmd->add_option("--output", options->output, "Write the first decoded vector here (.npy, or raw float32)");
  cmd->add_flag(
      "--json", options->json,
      "Print one JSON object: dimension, bits, bits_per_coordinate, relative_squared_error, repeats, "
      "stateful (and entropy_bits_per_coordinate for the quantizers)");
  cmd->callback([options] {
    const bool inline_json = options->compressor.find_first_not_of(" \t\r\n") != std::string::npos &&
                             options->compressor[options->compressor.find_first_not_of(" \t\r\n")] == '{';
    const std::string origin = inline_json ? "--compressor" : options->compressor;
    const json document =
        inline_json ? parse_json_text(options->compressor, origin) : parse_json_file(origin);
    json resolved;
    Spec spec = Spec::of_family(document, origin, "$", resolved, compression::compressors());
    const auto compressor = compression::make_compressor(spec);

    const std::vector<float> values = read_vector(options->input);
    const std::size_t d = values.size();
    double norm2 = 0;
    for (float x : values) norm2 += static_cast<double>(x) * x;

    Rng rng = Rng::stream(options->seed, 0, Purpose::user);
    const std::optional<double> floor = entropy_floor(*compressor, values, rng);
    // Stateful kinds (PowerSGD's warm-started factor) carry their state from one repeat to the next, as a
    // sender does from message to message.
    const std::unique_ptr<compression::Compressor::State> state = compressor->make_state(d);
    compression::Bytes bytes;
    std::vector<float> decoded(d), first;
    double bits = 0, error = 0;
    for (std::size_t r = 0; r < options->repeat; ++r) {
      bytes.clear();
      compressor->encode_with(values, rng, state.get(), bytes);
      compressor->decode_into(bytes, decoded);
      bits += 8.0 * static_cast<double>(bytes.size());
      double e = 0;
      for (std::size_t i = 0; i < d; ++i) {
        const double diff = static_cast<double>(decoded[i]) - values[i];
        e += diff * diff;
      }
      // A zero vector compresses to zeros: its relative error is reported as 0.
      error += norm2 > 0 ? e / norm2 : 0.0;
      if (r == 0) first = decoded;
    }
    const double repeats = static_cast<double>(options->repeat);
    const double mean_bits = bits / repeats, mean_error = error / repeats;
    if (!options->output.empty()) write_vector(options->output, first);

    if (options->json) {
      json report = {{"dimension", d},
                     {"bits", mean_bits},
                     {"bits_per_coordinate", mean_bits / static_cast<double>(d)},
                     {"relative_squared_error", mean_error},
                     {"repeats", options->repeat},
                     {"stateful", state != nullptr}};
      if (floor) report["entropy_bits_per_coordinate"] = *floor;
      std::printf("%s\n", report.dump().c_str());
    } else {
      std::printf("compressor:             %s\n", resolved.dump().c_str());
      std::printf("dimension:              %zu\n", d);
      std::printf("repeats:                %zu (seed %llu%s)\n", options->repeat,
                  static_cast<unsigned long long>(options->seed),
                  state ? "; successive calls, the compressor's state carried over" : "");
      std::printf("mean bits:              %.6g (float32: %zu)\n", mean_bits, 32 * d);
      std::printf("bits per coordinate:    %.6g\n", mean_bits / static_cast<double>(d));
      std::printf("relative squared error: %.6g\n", mean_error);
      if (floor) std::printf("entropy floor:          %.6g bits per coordinate\n", *floor);
    }
  });
}

}  // namespace sgdsim::app
