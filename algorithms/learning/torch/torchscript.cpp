// Bring-your-own model: a TorchScript module saved from Python, trained through the flat-vector boundary.
#include <ATen/record_function.h>
#include <caffe2/serialize/inline_container.h>
#include <torch/script.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <set>
#include <string_view>

#include "algorithms/learning/torch/network.hpp"
#include "algorithms/learning/torch/network_kinds.hpp"
#include "common/child_process.hpp"
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

// Forward + backward flops of one sample, counted from the operations the module's forward runs on one
// sample, with the conventions of docs/learning.md that the built-in networks' counts follow: a
// multiply-add is 2 flops; a layer with weights costs its forward again for the weight gradient, and once
// more for the input gradient unless its input needs none (the module's input); BatchNorm 24 per element,
// ReLU 2, a residual addition 2; k x k max-pooling k^2 per output; average pooling (and a mean) 2 per input;
// sgdsim's softmax cross-entropy over the logits, outside the module, 5 per class + 1. Only the outermost
// counted operation is counted (aten::linear calls aten::addmm). libtorch's RecordFunction callbacks see each
// operation with its inputs and outputs; the count depends on shapes only, never on values or time.
class OperationCount {
 public:
  OperationCount() {
    total_ = 0;
    depth_ = 0;
    handle_ = at::addThreadLocalCallback(at::RecordFunctionCallback(&start, &end)
                                             .needsInputs(true)
                                             .needsOutputs(true)
                                             .scopes({at::RecordScope::FUNCTION}));
  }
  ~OperationCount() { at::removeCallback(handle_); }
  OperationCount(const OperationCount&) = delete;
  OperationCount& operator=(const OperationCount&) = delete;
  double total() const { return total_; }

 private:
  // What the count needs of an outermost counted operation's inputs, taken when it starts: by its end the
  // interpreter's stack that held them has moved on.
  struct Operation : at::ObserverContext {
    std::string name;
    double inputs = 0;                      // elements of the first input
    bool input_needs = false;               // whether the first input needs a gradient
    double per_output = 0;                  // a weight's elements per output channel (its first dimension)
    double weight_columns = 0;              // a linear weight's last dimension
    bool bias = false;                      // a bias with elements
    double inner = 0;                       // a matmul's inner dimension
    bool a_needs = false, b_needs = false;  // whether its operands need gradients
    double window = 1;                      // a pooling window's elements (kernel_size)
  };
  struct Nested : at::ObserverContext {};
  static bool counted(std::string_view name) {
    static const std::set<std::string_view> names = {"aten::conv1d",
                                                     "aten::conv2d",
                                                     "aten::conv3d",
                                                     "aten::convolution",
                                                     "aten::_convolution",
                                                     "aten::linear",
                                                     "aten::matmul",
                                                     "aten::mm",
                                                     "aten::bmm",
                                                     "aten::addmm",
                                                     "aten::batch_norm",
                                                     "aten::relu",
                                                     "aten::relu_",
                                                     "aten::add",
                                                     "aten::add_",
                                                     "aten::max_pool1d",
                                                     "aten::max_pool2d",
                                                     "aten::max_pool3d",
                                                     "aten::avg_pool1d",
                                                     "aten::avg_pool2d",
                                                     "aten::avg_pool3d",
                                                     "aten::adaptive_avg_pool1d",
                                                     "aten::adaptive_avg_pool2d",
                                                     "aten::adaptive_avg_pool3d",
                                                     "aten::mean"};
    return names.count(name) > 0;
  }
  static const torch::Tensor* tensor(c10::ArrayRef<const c10::IValue> in, std::size_t k) {
    return k < in.size() && in[k].isTensor() ? &in[k].toTensor() : nullptr;
  }
  static std::unique_ptr<at::ObserverContext> start(const at::RecordFunction& fn) {
    if (!counted(fn.name())) return nullptr;
    if (depth_++ > 0) return std::make_unique<Nested>();
    auto op = std::make_unique<Operation>();
    op->name = fn.name();
    const c10::ArrayRef<const c10::IValue> in = fn.inputs();
    const bool addmm = op->name == "aten::addmm";  // addmm(bias, a, b)
    if (const torch::Tensor* x = tensor(in, 0)) {
      op->inputs = static_cast<double>(x->numel());
      op->input_needs = x->requires_grad();
    }
    if (const torch::Tensor* w = tensor(in, 1); w && w->dim() >= 1 && w->size(0) > 0) {
      op->per_output = static_cast<double>(w->numel()) / static_cast<double>(w->size(0));
      op->weight_columns = static_cast<double>(w->size(-1));
    }
    if (const torch::Tensor* b = tensor(in, 2)) op->bias = b->numel() > 0;
    if (const torch::Tensor* a = tensor(in, addmm ? 1 : 0); a && a->dim() >= 1) {
      op->inner = static_cast<double>(a->size(-1));
      op->a_needs = a->requires_grad();
    }
    if (const torch::Tensor* b = tensor(in, addmm ? 2 : 1)) op->b_needs = b->requires_grad();
    if (in.size() > 1 && in[1].isIntList())
      for (std::int64_t side : in[1].toIntVector()) op->window *= static_cast<double>(side);
    return op;
  }
  static void end(const at::RecordFunction& fn, at::ObserverContext* context) {
    if (!context) return;
    --depth_;
    const auto* op = dynamic_cast<const Operation*>(context);
    const std::vector<c10::IValue>& out = fn.outputs();
    if (op && !out.empty() && out[0].isTensor())
      total_ += flops(*op, static_cast<double>(out[0].toTensor().numel()));
  }
  static double flops(const Operation& op, double outputs) {
    const std::string_view name = op.name;
    // A layer with weights: forward, the weight gradient (the same, with the bias's), the input gradient.
    const auto weighted = [&](double forward) {
      const double bias = op.bias ? outputs : 0;
      return 2 * (forward + bias) + (op.input_needs ? forward : 0);
    };
    if (name.find("conv") != std::string_view::npos) return weighted(2 * op.per_output * outputs);
    if (name == "aten::linear") return weighted(2 * op.weight_columns * outputs);
    if (name == "aten::matmul" || name == "aten::mm" || name == "aten::bmm" || name == "aten::addmm") {
      const double forward = 2 * op.inner * outputs;
      return forward + (name == "aten::addmm" ? 2 * outputs : 0) + (op.a_needs ? forward : 0) +
             (op.b_needs ? forward : 0);
    }
    if (name == "aten::batch_norm") return 24 * op.inputs;
    if (name == "aten::relu" || name == "aten::relu_" || name == "aten::add" || name == "aten::add_")
      return 2 * outputs;
    if (name.starts_with("aten::max_pool")) return op.window * outputs;
    // Average pooling and means: a sum over each window, and the gradient spread back over it.
    if (name.starts_with("aten::avg_pool")) return 2 * op.window * outputs;
    return 2 * op.inputs;  // adaptive average pooling, mean
  }

  static thread_local double total_;
  static thread_local int depth_;
  at::CallbackHandle handle_;
};
thread_local double OperationCount::total_ = 0;
thread_local int OperationCount::depth_ = 0;

// libtorch's reader trusts the archive's code: a damaged one can crash it (fuzz_torchscript found a
// segmentation fault in its TorchScript type parser, docs/testing.md). The file is read once in a child
// process first, so that such a file is an InputError and not the end of sgdsim; what libtorch reports as an
// error comes from the real load below.
void require_loadable_in_child(const std::string& path) {
  process::Options quiet;
  quiet.output = process::Output::capture;
  process::Child child = process::fork_call(
      [&](int) {
        try {
          torch::jit::load(path, torch::kCPU);
        } catch (...) {
        }
        return 0;
      },
      quiet);
  const process::Exit exit = process::wait(child);
  if (!exit.ok()) {
    throw InputError(
        path + ": libtorch crashes reading this archive (" +
        (exit.signal ? std::string(strsignal(exit.signal)) : "exit " + std::to_string(exit.code)) +
        "): a damaged or hand-edited TorchScript file");
  }
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

// The flops of one sample (OperationCount) through the module in evaluation mode (no dropout, BatchNorm's
// running statistics left as they are) with its parameters requiring gradients, plus the loss.
double count_flops(ScriptNetwork& network, const ImageShape& input, int classes, const std::string& path) {
  double flops = 0;
  try {
    network.train(false);
    torch::AutoGradMode gradients(true);  // a layer's input gradient is counted when its input needs one
    OperationCount count;
    network.forward(torch::zeros({1, input.channels, input.height, input.width}));
    flops = count.total();
  } catch (const std::exception& e) {
    throw InputError(path + ": forward fails on one " + input.text() + " image: " + printable(message_of(e)));
  }
  if (!(flops > 0))
    throw InputError(path +
                     ": no convolution, linear layer, matmul, normalization or pooling found in forward; " +
                     "give model.flops_per_sample (forward + backward flops of one sample)");
  return flops + 5.0 * classes + 1;  // the softmax cross-entropy, as the built-in networks count it
}

}  // namespace

std::unique_ptr<TorchModel> load_torchscript(const std::string& path, const TorchOptions& options,
                                             const ImageShape& input, int classes, double flops_per_sample) {
  if (input.empty()) {
    throw InputError(path +
                     ": a TorchScript model needs image data (channels x height x width); this data set "
                     "has none");
  }
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) throw InputError(path + ": no such file");
  // The graph executor's profiling passes could specialise the graph after the first calls and change the
  // rounding between calls; plain interpretation keeps every call identical.
  torch::jit::setGraphExecutorOptimize(false);
  std::unique_ptr<ScriptNetwork> network;
  require_loadable_in_child(path);
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
  if (flops_per_sample <= 0) network->flops_per_sample = count_flops(*network, input, classes, path);
  return std::make_unique<TorchModel>(std::move(network), options);
}

namespace {

const bool torchscript_registered =
    add_torch_network("torchscript", [](const TorchRequest& r, const TorchOptions& o) {
      return load_torchscript(r.path, o, r.input, r.classes, r.flops_per_sample);
    });

}  // namespace

}  // namespace sgdsim::learning
