#include "script_fixture.hpp"

#include <caffe2/serialize/inline_container.h>
#include <torch/script.h>

namespace sgdsim::learning::testing {

void write_script_mlp(const std::string& path, int side, int classes) {
  torch::manual_seed(0);
  torch::jit::Module m("TinyMlp");
  m.register_parameter("w1", torch::randn({8, side * side}) * 0.3, false);
  m.register_parameter("b1", torch::randn({8}) * 0.1, false);
  m.register_parameter("w2", torch::randn({classes, 8}) * 0.3, false);
  m.register_parameter("b2", torch::zeros({classes}), false);
  m.define(R"(
def forward(self, x):
    h = torch.relu(torch.matmul(x.flatten(1), self.w1.t()) + self.b1)
    return torch.matmul(h, self.w2.t()) + self.b2
)");
  m.save(path);
}

void write_script_tuple(const std::string& path) {
  torch::jit::Module m("Tuple");
  m.register_parameter("w", torch::ones({1}), false);
  m.define(R"(
def forward(self, x):
    return (x, self.w)
)");
  m.save(path);
}

void write_script_dropout(const std::string& path, int side, int classes) {
  torch::manual_seed(0);
  torch::jit::Module m("DropoutMlp");
  m.register_attribute("training", c10::BoolType::get(), true);
  m.register_parameter("w1", torch::randn({8, side * side}) * 0.3, false);
  m.register_parameter("b1", torch::randn({8}) * 0.1, false);
  m.register_parameter("w2", torch::randn({classes, 8}) * 0.3, false);
  m.register_parameter("b2", torch::zeros({classes}), false);
  m.define(R"(
def forward(self, x):
    h = torch.relu(torch.matmul(x.flatten(1), self.w1.t()) + self.b1)
    h = torch.dropout(h, 0.5, self.training)
    return torch.matmul(h, self.w2.t()) + self.b2
)");
  m.save(path);
}

void write_script_lenet5(const std::string& path, int classes) {
  torch::manual_seed(0);
  torch::jit::Module m("ScriptedLeNet5");
  m.register_parameter("conv1_w", torch::randn({6, 1, 5, 5}) * 0.2, false);
  m.register_parameter("conv1_b", torch::zeros({6}), false);
  m.register_parameter("conv2_w", torch::randn({16, 6, 5, 5}) * 0.1, false);
  m.register_parameter("conv2_b", torch::zeros({16}), false);
  m.register_parameter("fc1_w", torch::randn({120, 400}) * 0.05, false);
  m.register_parameter("fc1_b", torch::zeros({120}), false);
  m.register_parameter("fc2_w", torch::randn({84, 120}) * 0.1, false);
  m.register_parameter("fc2_b", torch::zeros({84}), false);
  m.register_parameter("fc3_w", torch::randn({classes, 84}) * 0.1, false);
  m.register_parameter("fc3_b", torch::zeros({classes}), false);
  m.define(R"(
def forward(self, x):
    x = torch.max_pool2d(torch.relu(torch.conv2d(x, self.conv1_w, self.conv1_b, [1, 1], [2, 2])), [2, 2])
    x = torch.max_pool2d(torch.relu(torch.conv2d(x, self.conv2_w, self.conv2_b)), [2, 2])
    x = torch.relu(torch.linear(x.flatten(1), self.fc1_w, self.fc1_b))
    x = torch.relu(torch.linear(x, self.fc2_w, self.fc2_b))
    return torch.linear(x, self.fc3_w, self.fc3_b)
)");
  m.save(path);
}

void write_script_resnet20(const std::string& path, int classes) {
  torch::manual_seed(0);
  torch::jit::Module m("ScriptedResNet20");
  m.register_attribute("training", c10::BoolType::get(), true);
  // A convolution's kernel and the BatchNorm after it (scale, shift, running mean and variance).
  const auto conv_norm = [&](const std::string& name, int in, int out) {
    m.register_parameter(name + "_w", torch::randn({out, in, 3, 3}) * 0.1, false);
    m.register_parameter(name + "_g", torch::ones({out}), false);
    m.register_parameter(name + "_b", torch::zeros({out}), false);
    m.register_buffer(name + "_m", torch::zeros({out}));
    m.register_buffer(name + "_v", torch::ones({out}));
  };
  const auto norm = [](const std::string& name, const std::string& x) {
    return "torch.batch_norm(" + x + ", self." + name + "_g, self." + name + "_b, self." + name +
           "_m, self." + name + "_v, self.training, 0.1, 1e-5, False)";
  };
  const auto conv = [](const std::string& name, const std::string& x, int stride) {
    const std::string s = std::to_string(stride);
    return "torch.conv2d(" + x + ", self." + name + "_w, None, [" + s + ", " + s + "], [1, 1])";
  };
  conv_norm("stem", 3, 16);
  std::string code =
      "def forward(self, x):\n    x = torch.relu(" + norm("stem", conv("stem", "x", 1)) + ")\n";
  int in = 16;
  for (int stage = 0; stage < 3; ++stage) {
    const int out = 16 << stage;
    for (int b = 0; b < 3; ++b) {
      // Built by appending: GCC 12 warns falsely (-Wrestrict) on `"s" + std::to_string(...)`.
      std::string name = "s";
      name += std::to_string(stage);
      name += 'b';
      name += std::to_string(b);
      const int stride = stage > 0 && b == 0 ? 2 : 1;
      conv_norm(name + "c1", in, out);
      conv_norm(name + "c2", out, out);
      code += "    o = torch.relu(" + norm(name + "c1", conv(name + "c1", "x", stride)) + ")\n";
      code += "    o = " + norm(name + "c2", conv(name + "c2", "o", 1)) + "\n";
      // Option A: subsample, then zero-pad the new channels equally on both sides.
      const std::string shortcut = stride == 1 ? "x"
                                               : "torch.constant_pad_nd(x[:, :, ::2, ::2], [0, 0, 0, 0, " +
                                                     std::to_string((out - in) / 2) + ", " +
                                                     std::to_string(out - in - (out - in) / 2) + "], 0.0)";
      code += "    x = torch.relu(o + " + shortcut + ")\n";
      in = out;
    }
  }
  m.register_parameter("fc_w", torch::randn({classes, 64}) * 0.1, false);
  m.register_parameter("fc_b", torch::zeros({classes}), false);
  code += "    return torch.linear(x.mean([2, 3]), self.fc_w, self.fc_b)\n";
  m.define(code);
  m.save(path);
}

void write_script_uncounted(const std::string& path) {
  torch::jit::Module m("Uncounted");
  m.register_parameter("w", torch::ones({4}), false);
  m.define(R"(
def forward(self, x):
    return x.flatten(1)[:, 0:4] * self.w
)");
  m.save(path);
}

void rewrite_archive(const std::string& from, const std::string& to,
                     const std::function<std::string(const std::string& name, std::string bytes)>& edit) {
  caffe2::serialize::PyTorchStreamReader reader(from);
  caffe2::serialize::PyTorchStreamWriter writer(to);
  writer.setMinVersion(reader.version());
  for (const std::string& name : reader.getAllRecords()) {
    if (name == "version" || name == ".data/version") continue;
    auto [data, size] = reader.getRecord(name);
    std::string bytes = edit(name, std::string(static_cast<const char*>(data.get()), size));
    writer.writeRecord(name, bytes.data(), bytes.size());
  }
  writer.writeEndOfFile();
}

}  // namespace sgdsim::learning::testing
