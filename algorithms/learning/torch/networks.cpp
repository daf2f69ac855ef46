// LeNet-5 and the CIFAR-style ResNets as libtorch modules, with He initialisation from our Rng and analytic
// flop counts.
#include <cmath>

#include "algorithms/learning/torch/network.hpp"
#include "algorithms/learning/torch/network_kinds.hpp"
#include "common/error.hpp"

namespace sgdsim::learning {

namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;

// Forward + backward flops of one sample, counted layer by layer with the conventions of docs/learning.md:
// a multiply-add is 2 flops; backward costs the weight gradient plus the input gradient (not for the first
// layer, whose input needs none).
class FlopCounter {
 public:
  // k x k convolution cin -> cout producing an h x w map; a bias adds one addition per output forward and
  // one per output to its gradient.
  void conv(double cin, double cout, double k, double h, double w, bool first, bool bias = false) {
    const double forward = 2 * cin * k * k * cout * h * w;
    total += forward + forward + (first ? 0 : forward) + (bias ? 2 * cout * h * w : 0);
  }
  void linear(double n, double m, bool first) {
    total += (2 * n * m + m) + (2 * n * m + m) + (first ? 0 : 2 * n * m);
  }
  // Per element: forward 8 (mean 1, variance 3, normalise 2, scale and shift 2), backward twice that.
  void batch_norm(double elements) { total += 24 * elements; }
  void relu(double elements) { total += 2 * elements; }  // max, then the mask
  // k x k max-pooling to `outputs` elements: k^2 - 1 comparisons, backward routes one value per output.
  void max_pool(double k, double outputs) { total += (k * k - 1) * outputs + outputs; }
  void average_pool(double inputs) { total += 2 * inputs; }  // sum, and spreading the gradient back
  // Residual addition; its backward is the sum of the two gradients at the fork.
  void add(double elements) { total += 2 * elements; }
  // Softmax cross-entropy over k logits (as for the Eigen models: 5k + 1).
  void softmax_loss(double k) { total += 5 * k + 1; }
  double total = 0;
};

// How one parameter tensor starts: N(0, gain / fan_in) for weights (He et al. 2015), 0 or 1 otherwise.
struct InitRule {
  enum class Kind { normal, zero, one } kind;
  std::size_t size;
  double scale;  // standard deviation for `normal`
};

// Rules from parameter names: "...weight" with two or more dimensions is a layer weight (gain 2 for ReLU
// layers, 1 for the output layer named `output_weight`), a one-dimensional "...weight" is a BatchNorm scale
// (1), anything else is a bias (0).
std::vector<InitRule> init_rules(const nn::Module& module, const std::string& output_weight) {
  std::vector<InitRule> rules;
  for (const auto& item : module.named_parameters()) {
    const torch::Tensor& p = item.value();
    const auto size = static_cast<std::size_t>(p.numel());
    const bool weight = item.key().ends_with("weight");
    if (weight && p.dim() >= 2) {
      const double fan_in = static_cast<double>(p.numel()) / static_cast<double>(p.size(0));
      const double gain = item.key() == output_weight ? 1.0 : 2.0;
      rules.push_back({InitRule::Kind::normal, size, std::sqrt(gain / fan_in)});
    } else {
      rules.push_back({weight ? InitRule::Kind::one : InitRule::Kind::zero, size, 0});
    }
  }
  return rules;
}

// A TorchNetwork over a torch::nn module.
template <class Module>
class ModuleNetwork : public TorchNetwork {
 public:
  ModuleNetwork(std::shared_ptr<Module> module, const std::string& output_weight)
      : module_(std::move(module)) {
    rules_ = init_rules(*module_, output_weight);
    parameters = module_->parameters();
    for (const torch::Tensor& b : module_->buffers()) {
      if (b.is_floating_point()) state.push_back(b);  // running statistics, not the batch counter
    }
    capture_initial_state();
    initial_state_built = true;
  }
  torch::Tensor forward(const torch::Tensor& x) override { return module_->forward(x); }
  void train(bool on) override { module_->train(on); }
  void batch_statistics(bool on) override {
    for (const auto& child : module_->modules()) {
      if (dynamic_cast<nn::BatchNorm2dImpl*>(child.get())) child->train(on);
    }
  }
  void initialize(std::span<float> params, Rng& rng) const override {
    float* p = params.data();
    for (const InitRule& rule : rules_) {
      for (std::size_t k = 0; k < rule.size; ++k) {
        switch (rule.kind) {
          case InitRule::Kind::normal:
            p[k] = static_cast<float>(rule.scale * rng.normal());
            break;
          case InitRule::Kind::zero:
            p[k] = 0.0f;
            break;
          case InitRule::Kind::one:
            p[k] = 1.0f;
            break;
        }
      }
      p += rule.size;
    }
  }

 private:
  std::shared_ptr<Module> module_;
  std::vector<InitRule> rules_;
};

void check_common(const ImageShape& input, int classes, const std::string& model) {
  if (input.empty()) {
    throw InputError(model + ": needs image data (channels x height x width); this data set has none");
  }
  if (classes < 2)
    throw InputError(model + ": needs at least 2 classes, the data has " + std::to_string(classes));
}

// ---- LeNet-5 ----

struct LeNet5Module : nn::Module {
  LeNet5Module(const ImageShape& input, int classes) {
    conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(input.channels, 6, 5).padding(2)));
    conv2 = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(6, 16, 5)));
    const int h = (input.height / 2 - 4) / 2, w = (input.width / 2 - 4) / 2;
    fc1 = register_module("fc1", nn::Linear(16 * h * w, 120));
    fc2 = register_module("fc2", nn::Linear(120, 84));
    fc3 = register_module("fc3", nn::Linear(84, classes));
  }
  torch::Tensor forward(torch::Tensor x) {
    x = F::max_pool2d(torch::relu(conv1->forward(x)), F::MaxPool2dFuncOptions(2));
    x = F::max_pool2d(torch::relu(conv2->forward(x)), F::MaxPool2dFuncOptions(2));
    x = torch::relu(fc1->forward(x.flatten(1)));
    x = torch::relu(fc2->forward(x));
    return fc3->forward(x);
  }
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};

double lenet5_flops(const ImageShape& in, int classes) {
  FlopCounter f;
  const double h1 = in.height, w1 = in.width;  // 5x5, padding 2: same size
  f.conv(in.channels, 6, 5, h1, w1, true, true);
  f.relu(6 * h1 * w1);
  const double p1h = std::floor(h1 / 2), p1w = std::floor(w1 / 2);
  f.max_pool(2, 6 * p1h * p1w);
  const double h2 = p1h - 4, w2 = p1w - 4;
  f.conv(6, 16, 5, h2, w2, false, true);
  f.relu(16 * h2 * w2);
  const double p2h = std::floor(h2 / 2), p2w = std::floor(w2 / 2);
  f.max_pool(2, 16 * p2h * p2w);
  f.linear(16 * p2h * p2w, 120, false);
  f.relu(120);
  f.linear(120, 84, false);
  f.relu(84);
  f.linear(84, classes, false);
  f.softmax_loss(classes);
  return f.total;
}

// ---- ResNet (CIFAR) ----

struct BasicBlock : nn::Module {
  BasicBlock(int in, int out, int stride) : in_channels(in), out_channels(out), stride(stride) {
    conv1 = register_module("conv1",
                            nn::Conv2d(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)));
    bn1 = register_module("bn1", nn::BatchNorm2d(out));
    conv2 = register_module("conv2", nn::Conv2d(nn::Conv2dOptions(out, out, 3).padding(1).bias(false)));
    bn2 = register_module("bn2", nn::BatchNorm2d(out));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor out = torch::relu(bn1->forward(conv1->forward(x)));
    out = bn2->forward(conv2->forward(out));
    torch::Tensor shortcut = x;
    if (stride != 1 || in_channels != out_channels) {
      // Option A: subsample, then zero-pad the new channels equally on both sides.
      using torch::indexing::Slice;
      shortcut = x.index({Slice(), Slice(), Slice(torch::indexing::None, torch::indexing::None, stride),
                          Slice(torch::indexing::None, torch::indexing::None, stride)});
      const int pad = (out_channels - in_channels) / 2;
      shortcut = F::pad(shortcut, F::PadFuncOptions({0, 0, 0, 0, pad, out_channels - in_channels - pad}));
    }
    return torch::relu(out + shortcut);
  }
  int in_channels, out_channels, stride;
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
};

struct ResNetModule : nn::Module {
  ResNetModule(int blocks, const ImageShape& input, int classes) {
    conv =
        register_module("conv", nn::Conv2d(nn::Conv2dOptions(input.channels, 16, 3).padding(1).bias(false)));
    bn = register_module("bn", nn::BatchNorm2d(16));
    int in = 16;
    for (int stage = 0; stage < 3; ++stage) {
      const int out = 16 << stage;
      for (int b = 0; b < blocks; ++b) {
        const int stride = stage > 0 && b == 0 ? 2 : 1;
        layers.push_back(register_module("stage" + std::to_string(stage + 1) + "_" + std::to_string(b),
                                         std::make_shared<BasicBlock>(in, out, stride)));
        in = out;
      }
    }
    fc = register_module("fc", nn::Linear(64, classes));
  }
  torch::Tensor forward(const torch::Tensor& input) {
    torch::Tensor x = torch::relu(bn->forward(conv->forward(input)));
    for (const auto& block : layers) x = block->forward(x);
    return fc->forward(x.mean({2, 3}));
  }
  nn::Conv2d conv{nullptr};
  nn::BatchNorm2d bn{nullptr};
  std::vector<std::shared_ptr<BasicBlock>> layers;
  nn::Linear fc{nullptr};
};

double resnet_flops(int blocks, const ImageShape& in, int classes) {
  FlopCounter f;
  double h = in.height, w = in.width;
  f.conv(in.channels, 16, 3, h, w, true);
  f.batch_norm(16 * h * w);
  f.relu(16 * h * w);
  double channels = 16;
  for (int stage = 0; stage < 3; ++stage) {
    const double out = 16 << stage;
    for (int b = 0; b < blocks; ++b) {
      const bool down = stage > 0 && b == 0;
      if (down) {  // 3x3, stride 2, padding 1
        h = std::floor((h - 1) / 2) + 1;
        w = std::floor((w - 1) / 2) + 1;
      }
      const double e = out * h * w;
      f.conv(channels, out, 3, h, w, false);
      f.batch_norm(e);
      f.relu(e);
      f.conv(out, out, 3, h, w, false);
      f.batch_norm(e);
      f.add(e);
      f.relu(e);
      channels = out;
    }
  }
  f.average_pool(channels * h * w);
  f.linear(channels, classes, false);
  f.softmax_loss(classes);
  return f.total;
}

}  // namespace

std::unique_ptr<TorchModel> make_lenet5(const TorchOptions& options, const ImageShape& input, int classes) {
  check_common(input, classes, "lenet5");
  if (input.height < 12 || input.width < 12) {
    throw InputError("lenet5: images of " + input.text() +
                     " are too small; LeNet-5 needs at least 12x12 pixels");
  }
  auto network = std::make_unique<ModuleNetwork<LeNet5Module>>(std::make_shared<LeNet5Module>(input, classes),
                                                               "fc3.weight");
  network->input = input;
  network->classes = classes;
  network->flops_per_sample = lenet5_flops(input, classes);
  return std::make_unique<TorchModel>(std::move(network), options);
}

std::unique_ptr<TorchModel> make_resnet(int depth, const TorchOptions& options, const ImageShape& input,
                                        int classes) {
  check_common(input, classes, "resnet");
  if (depth < 8 || (depth - 2) % 6 != 0) {
    throw InputError("resnet: depth " + std::to_string(depth) +
                     " is not 6n + 2 (n >= 1); the CIFAR ResNets are 20, 32, 56, 110");
  }
  if (input.height < 4 || input.width < 4) {
    throw InputError("resnet: images of " + input.text() +
                     " are too small; the ResNet needs at least 4x4 pixels");
  }
  const int blocks = (depth - 2) / 6;
  auto network = std::make_unique<ModuleNetwork<ResNetModule>>(
      std::make_shared<ResNetModule>(blocks, input, classes), "fc.weight");
  network->input = input;
  network->classes = classes;
  network->flops_per_sample = resnet_flops(blocks, input, classes);
  return std::make_unique<TorchModel>(std::move(network), options);
}

namespace {

// Distinct names: the folder compiles as one unit (a unity build).
const bool lenet5_registered = add_torch_network("lenet5", [](const TorchRequest& r, const TorchOptions& o) {
  return make_lenet5(o, r.input, r.classes);
});
const bool resnet_registered = add_torch_network("resnet", [](const TorchRequest& r, const TorchOptions& o) {
  return make_resnet(r.depth, o, r.input, r.classes);
});

}  // namespace

}  // namespace sgdsim::learning
