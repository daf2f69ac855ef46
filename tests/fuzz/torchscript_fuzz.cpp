// Fuzz target: the TorchScript loader of model kind "torchscript" (load_torchscript) on arbitrary bytes,
// through a file as in real use. Built with GCC and tests/fuzz/mutation_driver.cpp (clang 14 cannot compile
// against libtorch 1.13's headers). The first byte chooses what the rest is:
//   even: the file itself (the zip container, its records and their checksums as given);
//   odd:  a format version byte, then records (name length byte, name, 4-byte little-endian size, bytes;
//   sizes
//         past the end are cut) that the target writes into a well-formed archive first, so that mutations
//         of the pickles, the code and the tensor data get past the container's CRC-32 checks.
// A model that trains (one gradient and one evaluation on a few random 1x6x6 images), or an InputError, are
// the only acceptable outcomes. The outcome reported to the driver is "loaded" or the error message with its
// numbers taken out.
//
// With SGDSIM_FUZZ_SEEDS=DIR in the environment the target writes seed inputs to DIR, in both forms, from the
// test fixtures' scripted modules and one with a buffer, and exits (tools/fuzz.sh makes the seeds that way).
#include <caffe2/serialize/inline_container.h>
#include <torch/script.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/learning/torch/torch_model.hpp"
#include "common/error.hpp"
#include "common/rng.hpp"
#include "memory_file.hpp"
#include "tests/torch/script_fixture.hpp"

extern "C" void sgdsim_fuzz_outcome(const char* outcome) __attribute__((weak));

namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr int kSide = 6;
constexpr int kClasses = 3;

// A module whose forward scales its logits by a float buffer: a buffer the loader must check as well.
void write_script_buffer(const std::string& path) {
  torch::manual_seed(1);
  torch::jit::Module m("Scaled");
  m.register_parameter("w", torch::randn({kClasses, kSide * kSide}) * 0.3, false);
  m.register_buffer("scale", torch::full({kClasses}, 0.5));
  m.define(R"(
def forward(self, x):
    return torch.matmul(x.flatten(1), self.w.t()) * self.scale
)");
  m.save(path);
}

// The records form of an archive: its format version, then every record but the version ones.
Bytes records_form(const std::string& path) {
  caffe2::serialize::PyTorchStreamReader reader(path);
  Bytes out{1, static_cast<std::uint8_t>(reader.version())};
  for (const std::string& name : reader.getAllRecords()) {
    if (name == "version" || name == ".data/version") continue;
    auto [data, size] = reader.getRecord(name);
    out.push_back(static_cast<std::uint8_t>(name.size()));
    out.insert(out.end(), name.begin(), name.end());
    for (int k = 0; k < 4; ++k) out.push_back(static_cast<std::uint8_t>(size >> (8 * k)));
    const auto* bytes = static_cast<const std::uint8_t*>(data.get());
    out.insert(out.end(), bytes, bytes + size);
  }
  return out;
}

void write_seeds(const std::string& dir) {
  namespace fixture = sgdsim::learning::testing;
  const std::string scratch = dir + "/scratch.pt";
  const auto keep = [&](const std::string& name) {
    std::ifstream in(scratch, std::ios::binary);
    Bytes file{0};
    file.insert(file.end(), std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    std::ofstream(dir + "/" + name + ".file", std::ios::binary)
        .write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
    const Bytes records = records_form(scratch);
    std::ofstream(dir + "/" + name + ".records", std::ios::binary)
        .write(reinterpret_cast<const char*>(records.data()), static_cast<std::streamsize>(records.size()));
  };
  fixture::write_script_mlp(scratch, kSide, kClasses);
  keep("mlp");
  fixture::write_script_dropout(scratch, kSide, kClasses);
  keep("dropout");
  fixture::write_script_tuple(scratch);
  keep("tuple");
  write_script_buffer(scratch);
  keep("buffer");
  std::remove(scratch.c_str());
}

// The archive the records form describes; empty when the writer refuses the records. The writer writes the
// version record itself, so records of that name are left out.
Bytes archive_of(const std::uint8_t* data, std::size_t size) {
  Bytes archive;
  auto writer = std::make_unique<caffe2::serialize::PyTorchStreamWriter>([&](const void* p, std::size_t n) {
    const auto* bytes = static_cast<const std::uint8_t*>(p);
    archive.insert(archive.end(), bytes, bytes + n);
    return n;
  });
  try {
    std::size_t at = 0;
    if (at < size) writer->setMinVersion(data[at++]);
    while (at < size) {
      const std::size_t declared = data[at++];
      const std::size_t name_size = std::min(declared, size - at);
      const std::string name(reinterpret_cast<const char*>(data + at), name_size);
      at += name_size;
      std::uint32_t record_size = 0;
      for (int k = 0; k < 4 && at < size; ++k) record_size |= std::uint32_t{data[at++]} << (8 * k);
      const std::size_t n = std::min<std::size_t>(record_size, size - at);
      if (name != "version" && name != ".data/version") writer->writeRecord(name, data + at, n);
      at += n;
    }
    writer->writeEndOfFile();
  } catch (const std::exception&) {
    // The destructor of a writer that failed would finish the archive and throw again: it is not run.
    (void)writer.release();
    return {};
  }
  return archive;
}

// The error's kind for the driver: its message without numbers (sizes, offsets, the memfd's path).
std::string outcome_of(const std::string& message) {
  std::string out;
  for (char c : message.substr(0, 160)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) out += c;
  }
  return out;
}

void report(const std::string& outcome) {
  if (sgdsim_fuzz_outcome) sgdsim_fuzz_outcome(outcome.c_str());
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
  using namespace sgdsim::learning;
  if (size == 0) return 0;
  const Bytes file = data[0] & 1 ? archive_of(data + 1, size - 1) : Bytes(data + 1, data + size);
  if (file.empty()) {
    report("records refused by the writer");
    return 0;
  }
  const sgdsim::fuzz::MemoryFile memory(file.data(), file.size());
  try {
    const ImageShape shape{1, kSide, kSide};
    const auto model = load_torchscript(memory.path(), TorchOptions{}, shape, kClasses, 1.0);
    std::size_t total = 0;
    for (std::size_t n : model->tensor_sizes()) total += n;
    if (model->dimension() == 0 || total != model->dimension()) std::abort();
    std::vector<float> params(model->dimension()), gradient(model->dimension());
    sgdsim::Rng rng(1);
    model->initialize(params, rng);
    Dataset images;
    images.features.resize(4, static_cast<Eigen::Index>(shape.size()));
    for (Eigen::Index i = 0; i < images.features.size(); ++i) {
      images.features.data()[i] = static_cast<float>(rng.uniform());
    }
    images.classes = kClasses;
    images.labels = {0, 1, 2, 1};
    images.image = shape;
    const std::vector<std::size_t> batch{0, 1, 2, 3};
    model->loss_and_gradient(params, images, batch, gradient);
    model->evaluate(params, images);
    report("loaded");
  } catch (const sgdsim::InputError& e) {
    report(outcome_of(e.what()));
  }
  return 0;
}
