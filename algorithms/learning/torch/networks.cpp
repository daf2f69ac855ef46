// LeNet-5, the CIFAR-style ResNets and the ImageNet ResNets as libtorch modules, with He initialisation from
// our Rng and analytic flop counts.
#include <array>
#include <cmath>
#include <optional>

#include "algorithms/learning/torch/max_pool.hpp"
#include "algorithms/learning/torch/network.hpp"
#include "algorithms/learning/torch/network_kinds.hpp"
#include "common/error.hpp"

namespace sgdsim::learning {

namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;

// Forward + backward flops of one sample, counted layer by layer with the conventions of docs/learning.md:
// a multiply-add is 2 flops; backward costs the weight gradient plus the input gradient (not for the first
// layer, whose input needs none). Each layer is also recorded with the values it moves and its kernels, for a
// device's roofline (docs/compute.md): a layer reads its input and writes its output forward, and reads them
// again (or their gradients) backward.
class FlopCounter {
 public:
  // k x k convolution cin -> cout producing an h x w map from an input `stride` times larger each way; a
  // bias adds one addition per output forward and one per output to its gradient.
  void conv(double cin, double cout, double k, double h, double w, bool first, bool bias = false,
            double stride = 1) {
    const double forward = 2 * cin * k * k * cout * h * w;
    const double flops = forward + forward + (first ? 0 : forward) + (bias ? 2 * cout * h * w : 0);
    total += flops;
    weighted(flops, cin * h * w * stride * stride, cout * h * w, cin * k * k * cout + (bias ? cout : 0),
             first, bias ? 2 : 1);
  }
  void linear(double n, double m, bool first) {
    const double flops = (2 * n * m + m) + (2 * n * m + m) + (first ? 0 : 2 * n * m);
    total += flops;
    weighted(flops, n, m, n * m + m, first, 2);
  }
  // Per element: forward 8 (mean 1, variance 3, normalise 2, scale and shift 2), backward twice that.
  // Values: forward reads x twice (statistics, then normalising) and writes y; backward reads dy and x for
  // the two sums, then again to write dx.
  // Its scale and shift are not counted as weights moved (a vector per channel).
  void batch_norm(double elements) {
    total += 24 * elements;
    owns(2);
    layers.push_back({24 * elements, 8 * elements, 0, 2});
  }
  void relu(double elements) {  // max, then the mask
    total += 2 * elements;
    layers.push_back({2 * elements, 5 * elements, 0, 2});
  }
  // k x k max-pooling of `inputs` elements to `outputs`: k^2 - 1 comparisons per output, backward routes
  // one value per output.
  void max_pool(double k, double outputs, double inputs) {
    const double flops = (k * k - 1) * outputs + outputs;
    total += flops;
    layers.push_back({flops, 2 * (inputs + outputs), 0, 2});
  }
  void average_pool(double inputs) {  // sum, and spreading the gradient back
    total += 2 * inputs;
    layers.push_back({2 * inputs, 2 * inputs, 0, 2});
  }
  // Residual addition; its backward is the sum of the two gradients at the fork.
  void add(double elements) {
    total += 2 * elements;
    layers.push_back({2 * elements, 6 * elements, 0, 2});
  }
  // Softmax cross-entropy over k logits (as for the Eigen models: 5k + 1).
  void softmax_loss(double k) {
    total += 5 * k + 1;
    layers.push_back({5 * k + 1, 4 * k, 0, 2});
  }
  double total = 0;
  std::vector<LayerCost> layers;
  // Each parameter tensor's layer, in the order the modules register them (weight, then bias).
  std::vector<std::size_t> tensor_layers;

 private:
  // A layer with weights: forward (input and output, weights read), the weight gradient (output gradient
  // and input read, weight gradient written), the input gradient unless first (output gradient read, input
  // gradient written, weights read).
  // The next layer holds `tensors` parameter tensors.
  void owns(std::size_t tensors) { tensor_layers.insert(tensor_layers.end(), tensors, layers.size()); }
  void weighted(double flops, double in, double out, double weights, bool first, std::size_t tensors) {
    owns(tensors);
    layers.push_back({flops, (first ? 2 : 3) * (in + out), (first ? 2 : 3) * weights, first ? 2.0 : 3.0});
  }
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
    x = max_pool_2x2(torch::relu(conv1->forward(x)));
    x = max_pool_2x2(torch::relu(conv2->forward(x)));
    x = torch::relu(fc1->forward(x.flatten(1)));
    x = torch::relu(fc2->forward(x));
    return fc3->forward(x);
  }
  nn::Conv2d conv1{nullptr}, conv2{nullptr};
  nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};

FlopCounter lenet5_flops(const ImageShape& in, int classes) {
  FlopCounter f;
  const double h1 = in.height, w1 = in.width;  // 5x5, padding 2: same size
  f.conv(in.channels, 6, 5, h1, w1, true, true);
  f.relu(6 * h1 * w1);
  const double p1h = std::floor(h1 / 2), p1w = std::floor(w1 / 2);
  f.max_pool(2, 6 * p1h * p1w, 6 * h1 * w1);
  const double h2 = p1h - 4, w2 = p1w - 4;
  f.conv(6, 16, 5, h2, w2, false, true);
  f.relu(16 * h2 * w2);
  const double p2h = std::floor(h2 / 2), p2w = std::floor(w2 / 2);
  f.max_pool(2, 16 * p2h * p2w, 16 * h2 * w2);
  f.linear(16 * p2h * p2w, 120, false);
  f.relu(120);
  f.linear(120, 84, false);
  f.relu(84);
  f.linear(84, classes, false);
  f.softmax_loss(classes);
  return f;
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

FlopCounter resnet_flops(int blocks, const ImageShape& in, int classes) {
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
      f.conv(channels, out, 3, h, w, false, false, down ? 2 : 1);
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
  return f;
}

// ---- ResNet (ImageNet) ----

// The ImageNet ResNets' blocks (He et al. 2016, table 1): two 3x3 convolutions (18, 34) or a 1x1 - 3x3 - 1x1
// bottleneck of four times its width (50, 101, 152), each followed by BatchNorm; a shortcut projected by a
// strided 1x1 convolution and BatchNorm where the shape changes (option B). The bottleneck strides in its 3x3
// convolution, as torchvision's and NVIDIA's ResNet-50 v1.5 do.
struct ImageNetBlock : nn::Module {
  ImageNetBlock(int in, int width, int stride, bool bottleneck)
      : out_channels(bottleneck ? 4 * width : width), bottleneck(bottleneck) {
    const auto conv = [](int from, int to, int k, int s) {
      return nn::Conv2d(nn::Conv2dOptions(from, to, k).stride(s).padding(k / 2).bias(false));
    };
    // {in, out, kernel, stride} of each convolution, registered with its BatchNorm in forward order.
    const std::vector<std::array<int, 4>> shapes =
        bottleneck ? std::vector<std::array<int, 4>>{{in, width, 1, 1},
                                                     {width, width, 3, stride},
                                                     {width, out_channels, 1, 1}}
                   : std::vector<std::array<int, 4>>{{in, width, 3, stride}, {width, width, 3, 1}};
    for (std::size_t k = 0; k < shapes.size(); ++k) {
      const auto [from, to, kernel, s] = shapes[k];
      convs.push_back(register_module("conv" + std::to_string(k + 1), conv(from, to, kernel, s)));
      norms.push_back(register_module("bn" + std::to_string(k + 1), nn::BatchNorm2d(to)));
    }
    if (stride != 1 || in != out_channels) {
      projection = register_module("projection", conv(in, out_channels, 1, stride));
      projection_norm = register_module("projection_bn", nn::BatchNorm2d(out_channels));
    }
  }
  torch::Tensor forward(const torch::Tensor& x) {
    torch::Tensor out = x;
    for (std::size_t k = 0; k < convs.size(); ++k) {
      out = norms[k]->forward(convs[k]->forward(out));
      if (k + 1 < convs.size()) out = torch::relu(out);
    }
    const torch::Tensor shortcut =
        projection.is_empty() ? x : projection_norm->forward(projection->forward(x));
    return torch::relu(out + shortcut);
  }
  int out_channels;
  bool bottleneck;
  std::vector<nn::Conv2d> convs;
  std::vector<nn::BatchNorm2d> norms;
  nn::Conv2d projection{nullptr};
  nn::BatchNorm2d projection_norm{nullptr};
};

// Blocks per stage, and whether they are bottlenecks, by depth (He et al. 2016, table 1).
struct ImageNetDepth {
  std::array<int, 4> blocks;
  bool bottleneck;
};
std::optional<ImageNetDepth> imagenet_depth(int depth) {
  switch (depth) {
    case 18:
      return ImageNetDepth{{2, 2, 2, 2}, false};
    case 34:
      return ImageNetDepth{{3, 4, 6, 3}, false};
    case 50:
      return ImageNetDepth{{3, 4, 6, 3}, true};
    case 101:
      return ImageNetDepth{{3, 4, 23, 3}, true};
    case 152:
      return ImageNetDepth{{3, 8, 36, 3}, true};
    default:
      return std::nullopt;
  }
}

// A k x k convolution (padding k / 2) or pooling with stride s: the output size of `size`.
double strided(double size, double k, double s) {
  return std::floor((size + 2 * std::floor(k / 2) - k) / s) + 1;
}

struct ImageNetResNetModule : nn::Module {
  ImageNetResNetModule(const ImageNetDepth& shape, const ImageShape& input, int classes) {
    stem = register_module(
        "conv", nn::Conv2d(nn::Conv2dOptions(input.channels, 64, 7).stride(2).padding(3).bias(false)));
    bn = register_module("bn", nn::BatchNorm2d(64));
    int in = 64;
    for (int stage = 0; stage < 4; ++stage) {
      const int width = 64 << stage;
      for (int b = 0; b < shape.blocks[static_cast<std::size_t>(stage)]; ++b) {
        const int stride = stage > 0 && b == 0 ? 2 : 1;
        layers.push_back(
            register_module("stage" + std::to_string(stage + 1) + "_" + std::to_string(b),
                            std::make_shared<ImageNetBlock>(in, width, stride, shape.bottleneck)));
        in = layers.back()->out_channels;
      }
    }
    fc = register_module("fc", nn::Linear(in, classes));
  }
  torch::Tensor forward(const torch::Tensor& input) {
    torch::Tensor x = torch::relu(bn->forward(stem->forward(input)));
    x = F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1));
    for (const auto& block : layers) x = block->forward(x);
    return fc->forward(x.mean({2, 3}));
  }
  nn::Conv2d stem{nullptr};
  nn::BatchNorm2d bn{nullptr};
  std::vector<std::shared_ptr<ImageNetBlock>> layers;
  nn::Linear fc{nullptr};
};

FlopCounter imagenet_resnet_flops(const ImageNetDepth& shape, const ImageShape& in, int classes) {
  FlopCounter f;
  double h = strided(in.height, 7, 2), w = strided(in.width, 7, 2);
  f.conv(in.channels, 64, 7, h, w, true, false, 2);
  f.batch_norm(64 * h * w);
  f.relu(64 * h * w);
  const double before_pool = 64 * h * w;
  h = strided(h, 3, 2);
  w = strided(w, 3, 2);
  f.max_pool(3, 64 * h * w, before_pool);
  double channels = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const double width = 64 << stage;
    const double out = shape.bottleneck ? 4 * width : width;
    for (int b = 0; b < shape.blocks[static_cast<std::size_t>(stage)]; ++b) {
      const double stride = stage > 0 && b == 0 ? 2 : 1;
      const double h_in = h, w_in = w;
      h = strided(h, 3, stride);
      w = strided(w, 3, stride);
      if (shape.bottleneck) {
        f.conv(channels, width, 1, h_in, w_in, false);
        f.batch_norm(width * h_in * w_in);
        f.relu(width * h_in * w_in);
        f.conv(width, width, 3, h, w, false, false, stride);
        f.batch_norm(width * h * w);
        f.relu(width * h * w);
        f.conv(width, out, 1, h, w, false);
      } else {
        f.conv(channels, width, 3, h, w, false, false, stride);
        f.batch_norm(width * h * w);
        f.relu(width * h * w);
        f.conv(width, width, 3, h, w, false);
      }
      f.batch_norm(out * h * w);
      if (stride != 1 || channels != out) {
        f.conv(channels, out, 1, h, w, false, false, stride);
        f.batch_norm(out * h * w);
      }
      f.add(out * h * w);
      f.relu(out * h * w);
      channels = out;
    }
  }
  f.average_pool(channels * h * w);
  f.linear(channels, classes, false);
  f.softmax_loss(classes);
  return f;
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
  const FlopCounter counted = lenet5_flops(input, classes);
  network->flops_per_sample = counted.total;
  network->layers = counted.layers;
  network->tensor_layers = counted.tensor_layers;
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
  const FlopCounter counted = resnet_flops(blocks, input, classes);
  network->flops_per_sample = counted.total;
  network->layers = counted.layers;
  network->tensor_layers = counted.tensor_layers;
  return std::make_unique<TorchModel>(std::move(network), options);
}

std::unique_ptr<TorchModel> make_imagenet_resnet(int depth, const TorchOptions& options,
                                                 const ImageShape& input, int classes) {
  check_common(input, classes, "resnet");
  const std::optional<ImageNetDepth> shape = imagenet_depth(depth);
  if (!shape)
    throw InputError("resnet: depth " + std::to_string(depth) +
                     " is not one of the ImageNet ResNets' 18, 34, 50, 101, 152 (variant \"imagenet\")");
  if (input.height < 32 || input.width < 32) {
    throw InputError("resnet: images of " + input.text() +
                     " are too small for the ImageNet ResNet, which needs at least 32x32 pixels (its stem "
                     "and four stages divide them by 32)");
  }
  auto network = std::make_unique<ModuleNetwork<ImageNetResNetModule>>(
      std::make_shared<ImageNetResNetModule>(*shape, input, classes), "fc.weight");
  network->input = input;
  network->classes = classes;
  const FlopCounter counted = imagenet_resnet_flops(*shape, input, classes);
  network->flops_per_sample = counted.total;
  network->layers = counted.layers;
  network->tensor_layers = counted.tensor_layers;
  return std::make_unique<TorchModel>(std::move(network), options);
}

namespace {

// Distinct names: the folder compiles as one unit (a unity build).
const bool lenet5_registered = add_torch_network("lenet5", [](const TorchRequest& r, const TorchOptions& o) {
  return make_lenet5(o, r.input, r.classes);
});
const bool resnet_registered = add_torch_network("resnet", [](const TorchRequest& r, const TorchOptions& o) {
  return r.imagenet ? make_imagenet_resnet(r.depth, o, r.input, r.classes)
                    : make_resnet(r.depth, o, r.input, r.classes);
});

}  // namespace

}  // namespace sgdsim::learning
