// Bring-your-own model: a TorchScript module saved from Python, trained through the flat-vector boundary.
#include <caffe2/serialize/inline_container.h>
#include <torch/script.h>

#include <cstdint>
#include <filesystem>
#include <set>

#include "algorithms/learning/torch/network.hpp"
#include "algorithms/learning/torch/network_kinds.hpp"
#include "common/error.hpp"

namespace sgdsim::learning {

namespace {

// libtorch's messages quote the archive's bytes: only printable ASCII of the first line reaches the terminal,
// and not too much of it.
std::string printable(const std::string& text) {
  std::string out;
  for (char c : text.substr(0, text.find('\n'))) {
    if (out.size() == 300) return out + "...";
    out += c >= 0x20 && c < 0x7f ? c : '?';
  }
  return out;
}

std::string message_of(const std::exception& e) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) return c10_error->what_without_backtrace();
  return e.what();
}

// The bytes a tensor reads from its storage, which a damaged archive may make shorter than the tensor: a
// tensor reaching past its storage would read memory out of bounds.
void require_storage(const torch::Tensor& t, const std::string& name, const std::string& path) {
  if (t.numel() == 0) return;
  std::int64_t last = t.storage_offset();
  for (std::int64_t d = 0; d < t.dim(); ++d) {
    if (t.stride(d) < 0) throw InputError(path + ": tensor " + name + " has a negative stride");
    last += (t.size(d) - 1) * t.stride(d);
  }
  const auto needed = static_cast<std::uint64_t>(last + 1) * t.element_size();
  const std::uint64_t held = t.storage().nbytes();
  if (!t.storage().data() || needed > held) {
    throw InputError(path + ": tensor " + name + " needs " + std::to_string(needed) +
                     " bytes, its storage in the file holds " + std::to_string(held) +
                     " (a damaged or truncated archive)");
  }
}

// The byte sizes of the archive's tensor data records ("data/N"). libtorch sizes a storage from the element
// count in the archive's pickle, not from the record that holds its bytes: a shorter record is read out of
// bounds.
std::multiset<std::uint64_t> data_record_sizes(const std::string& path) {
  caffe2::serialize::PyTorchStreamReader reader(path);
  std::multiset<std::uint64_t> sizes;
  for (const std::string& name : reader.getAllRecords()) {
    if (name.rfind("data/", 0) == 0) sizes.insert(std::get<1>(reader.getRecord(name)));
  }
  return sizes;
}

// Every storage of the module's parameters and buffers has a data record of its size.
void require_records(const torch::jit::Module& module, std::multiset<std::uint64_t> sizes,
                     const std::string& path) {
  std::set<const void*> seen;
  auto check = [&](const torch::Tensor& t, const std::string& name) {
    const c10::Storage& storage = t.storage();
    if (storage.nbytes() == 0 || !seen.insert(storage.data()).second) return;
    const auto match = sizes.find(storage.nbytes());
    if (match == sizes.end()) {
      throw InputError(path + ": tensor " + name + " needs " + std::to_string(storage.nbytes()) +
                       " bytes of data, and no tensor record in the file holds that many (a damaged or "
                       "truncated archive)");
    }
    sizes.erase(match);
  };
  for (const auto& p : module.named_parameters()) check(p.value, p.name);
  for (const auto& b : module.named_buffers()) check(b.value, b.name);
}

class ScriptNetwork : public TorchNetwork {
 public:
  ScriptNetwork(torch::jit::Module module, const std::string& path) : module_(std::move(module)) {
    for (const auto& p : module_.named_parameters()) require_storage(p.value, p.name, path);
    for (const auto& b : module_.named_buffers()) require_storage(b.value, b.name, path);
    for (const torch::Tensor& p : module_.parameters()) {
      if (p.scalar_type() != torch::kFloat32 || !p.is_contiguous()) {
        throw InputError(path + ": the module has a parameter of type " +
                         std::string(c10::toString(p.scalar_type())) +
                         "; sgdsim trains float32 parameters only");
      }
      p.requires_grad_(true);
      parameters.push_back(p);
      const float* values = p.data_ptr<float>();
      saved_.insert(saved_.end(), values, values + p.numel());
    }
    if (parameters.empty()) throw InputError(path + ": the module has no parameters to train");
    for (const torch::Tensor& b : module_.buffers()) {
      if (!b.is_floating_point()) continue;  // e.g. BatchNorm's batch counter
      if (b.scalar_type() != torch::kFloat32 || !b.is_contiguous()) {
        throw InputError(path + ": the module has a buffer of type " +
                         std::string(c10::toString(b.scalar_type())) +
                         "; sgdsim supports float32 buffers only");
      }
      state.push_back(b);
    }
    capture_initial_state();
    order_free = false;  // forward is the user's: it may use dropout
  }
  torch::Tensor forward(const torch::Tensor& x) override { return module_.forward({x}).toTensor(); }
  void train(bool on) override { module_.train(on); }
  // The values saved in the file: the user's own initialisation. `rng` is not used.
  void initialize(std::span<float> params, Rng&) const override {
    std::copy(saved_.begin(), saved_.end(), params.begin());
  }

 private:
  torch::jit::Module module_;
  std::vector<float> saved_;
};

}  // namespace

std::unique_ptr<TorchModel> load_torchscript(const std::string& path, const TorchOptions& options,
                                             const ImageShape& input, int classes, double flops_per_sample) {
  if (input.empty()) {
    throw InputError(path +
                     ": a TorchScript model needs image data (channels x height x width); this data set "
                     "has none");
  }
  if (!(flops_per_sample > 0)) {
    throw InputError(path +
                     ": flops_per_sample must be positive: sgdsim cannot count the operations of a "
                     "scripted module, give forward + backward flops of one sample");
  }
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) throw InputError(path + ": no such file");
  // The graph executor's profiling passes could specialise the graph after the first calls and change the
  // rounding between calls; plain interpretation keeps every call identical.
  torch::jit::setGraphExecutorOptimize(false);
  std::unique_ptr<ScriptNetwork> network;
  try {
    const std::multiset<std::uint64_t> sizes = data_record_sizes(path);
    torch::jit::Module module = torch::jit::load(path, torch::kCPU);
    require_records(module, sizes, path);
    network = std::make_unique<ScriptNetwork>(std::move(module), path);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    // c10::Error for a broken archive, others (the script compiler's ErrorReport) for broken code in it.
    throw InputError(
        path + ": not a readable TorchScript module (save it with torch.jit.script(model).save(...)): " +
        printable(message_of(e)));
  }
  network->input = input;
  network->classes = classes;
  network->flops_per_sample = flops_per_sample;
  // Check the contract once on two zero images: forward must accept N x C x H x W and return N x classes.
  torch::Tensor output;
  try {
    torch::NoGradGuard no_grad;
    network->train(false);
    output = network->forward(torch::zeros({2, input.channels, input.height, input.width}));
  } catch (const std::exception& e) {
    throw InputError(path + ": forward fails on a batch of " + input.text() +
                     " images: " + printable(message_of(e)));
  }
  if (output.dim() != 2 || output.size(0) != 2 || output.size(1) != classes) {
    throw InputError(path + ": forward returns a tensor of shape " + c10::str(output.sizes()) +
                     " for 2 images, " + "expected [2, " + std::to_string(classes) +
                     "] (one logit per class; the data has " + std::to_string(classes) + " classes)");
  }
  if (output.scalar_type() != torch::kFloat32) {
    throw InputError(path + ": forward returns " + std::string(c10::toString(output.scalar_type())) +
                     " logits, expected float32");
  }
  return std::make_unique<TorchModel>(std::move(network), options);
}

namespace {

const bool torchscript_registered =
    add_torch_network("torchscript", [](const TorchRequest& r, const TorchOptions& o) {
      return load_torchscript(r.path, o, r.input, r.classes, r.flops_per_sample);
    });

}  // namespace

}  // namespace sgdsim::learning
