#include "script_fixture.hpp"

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

}  // namespace sgdsim::learning::testing
