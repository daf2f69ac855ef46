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
