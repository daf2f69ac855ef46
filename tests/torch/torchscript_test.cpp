// Bring-your-own TorchScript models: loading, training through the flat vector, and bad files.
#include <catch2/catch.hpp>

#include <cmath>

#include "../learning/helpers.hpp"
#include "algorithms/learning/torch/torch_model.hpp"
#include "common/error.hpp"
#include "script_fixture.hpp"

using namespace sgdsim;
using namespace sgdsim::learning;
using sgdsim::learning::testing::TempDir;

TEST_CASE("a TorchScript module trains through the flat vector") {
  TempDir dir;
  const std::string path = dir.file("mlp.pt");
  testing::write_script_mlp(path, 6, 3);
  const ImageShape shape{1, 6, 6};
  const auto model = load_torchscript(path, TorchOptions{}, shape, 3, 1234.0);
  CHECK(model->dimension() == 8 * 36 + 8 + 3 * 8 + 3);
  CHECK(model->tensor_sizes() == std::vector<std::size_t>{8 * 36, 8, 3 * 8, 3});
  CHECK(model->state_dimension() == 0);
  CHECK(model->flops_per_sample() == 1234.0);
  // initialize() gives the saved values whatever the stream.
  std::vector<float> a(model->dimension()), b(model->dimension());
  Rng r1(1), r2(2);
  model->initialize(a, r1);
  model->initialize(b, r2);
  CHECK(a == b);
  CHECK(a[0] != 0.0f);
  CHECK(a.back() == 0.0f);  // b2 was saved as zeros
  Dataset data = testing::random_dataset(16, 36, 3, 9);
  data.image = shape;
  std::vector<std::size_t> batch(16);
  for (std::size_t i = 0; i < batch.size(); ++i) batch[i] = i;
  std::vector<float> gradient(model->dimension());
  const double loss = model->loss_and_gradient(a, data, batch, gradient);
  CHECK(loss == Approx(model->evaluate(a, data).loss).epsilon(1e-5));
  // Finite difference at the largest gradient coordinate of every tensor.
  std::size_t start = 0;
  for (std::size_t size : model->tensor_sizes()) {
    std::size_t best = start;
    for (std::size_t k = start; k < start + size; ++k)
      if (std::abs(gradient[k]) > std::abs(gradient[best])) best = k;
    std::vector<float> plus = a, minus = a, unused(a.size());
    const float eps = 1e-3f;
    plus[best] += eps;
    minus[best] -= eps;
    const double numeric = (model->loss_and_gradient(plus, data, batch, unused) -
                            model->loss_and_gradient(minus, data, batch, unused)) /
                           (2.0 * eps);
    CHECK(numeric == Approx(gradient[best]).epsilon(0.02).margin(1e-3));
    start += size;
  }
  // A few steps of SGD lower the loss.
  for (int step = 0; step < 20; ++step) {
    model->loss_and_gradient(a, data, batch, gradient);
    for (std::size_t k = 0; k < a.size(); ++k) a[k] -= 0.5f * gradient[k];
  }
  CHECK(model->evaluate(a, data).loss < loss);
}

TEST_CASE("bad TorchScript files and mismatched shapes are errors naming the file") {
  TempDir dir;
  const std::string good = dir.file("mlp.pt");
  testing::write_script_mlp(good, 6, 4);
  const ImageShape shape{1, 6, 6};
  CHECK_THROWS_WITH(load_torchscript(dir.file("missing.pt"), TorchOptions{}, shape, 4, 1.0),
                    Catch::Contains("missing.pt") && Catch::Contains("no such file"));
  const std::string corrupt = dir.file("corrupt.pt");
  testing::write_plain(corrupt, "this is not a TorchScript archive");
  CHECK_THROWS_WITH(load_torchscript(corrupt, TorchOptions{}, shape, 4, 1.0),
                    Catch::Contains("corrupt.pt") && Catch::Contains("not a readable TorchScript module"));
  CHECK_THROWS_WITH(
      load_torchscript(good, TorchOptions{}, shape, 3, 1.0),
      Catch::Contains("mlp.pt") && Catch::Contains("[2, 4]") && Catch::Contains("expected [2, 3]"));
  CHECK_THROWS_WITH(
      load_torchscript(good, TorchOptions{}, ImageShape{1, 5, 5}, 4, 1.0),
      Catch::Contains("mlp.pt") && Catch::Contains("forward fails") && Catch::Contains("1x5x5"));
  const std::string uncounted = dir.file("uncounted.pt");
  testing::write_script_uncounted(uncounted);
  CHECK_THROWS_WITH(load_torchscript(uncounted, TorchOptions{}, shape, 4, 0.0),
                    Catch::Contains("uncounted.pt") && Catch::Contains("flops_per_sample"));
  CHECK(load_torchscript(uncounted, TorchOptions{}, shape, 4, 10.0)->flops_per_sample() == 10.0);
  CHECK_THROWS_WITH(load_torchscript(good, TorchOptions{}, ImageShape{}, 4, 1.0),
                    Catch::Contains("image data"));
  const std::string tuple = dir.file("tuple.pt");
  testing::write_script_tuple(tuple);
  CHECK_THROWS_WITH(load_torchscript(tuple, TorchOptions{}, shape, 4, 1.0),
                    Catch::Contains("tuple.pt") && Catch::Contains("forward fails"));
  CHECK_NOTHROW(load_torchscript(good, TorchOptions{}, shape, 4, 1.0));
}

TEST_CASE("a TorchScript module's flops are counted from its operations: the built-in networks' counts") {
  TempDir dir;
  const TorchOptions options;
  const std::string lenet5 = dir.file("lenet5.pt");
  testing::write_script_lenet5(lenet5, 10);
  const auto scripted_lenet5 = load_torchscript(lenet5, options, ImageShape{1, 28, 28}, 10, 0.0);
  const auto built_lenet5 = make_lenet5(options, ImageShape{1, 28, 28}, 10);
  CHECK(scripted_lenet5->dimension() == built_lenet5->dimension());
  CHECK(scripted_lenet5->flops_per_sample() == built_lenet5->flops_per_sample());
  const std::string resnet20 = dir.file("resnet20.pt");
  testing::write_script_resnet20(resnet20, 10);
  const auto scripted_resnet = load_torchscript(resnet20, options, ImageShape{3, 32, 32}, 10, 0.0);
  const auto built_resnet = make_resnet(20, options, ImageShape{3, 32, 32}, 10);
  CHECK(scripted_resnet->dimension() == built_resnet->dimension());
  CHECK(scripted_resnet->state_dimension() == built_resnet->state_dimension());
  CHECK(scripted_resnet->flops_per_sample() == built_resnet->flops_per_sample());
  // The perceptron by hand: x W1ᵀ (2·36·8, and again for W1's gradient; x needs none), + b1 and ReLU (2 per
  // element each), h W2ᵀ (2·8·3, three times), + b2 (2 per class), the loss (5·3 + 1).
  const std::string mlp = dir.file("mlp.pt");
  testing::write_script_mlp(mlp, 6, 3);
  CHECK(load_torchscript(mlp, options, ImageShape{1, 6, 6}, 3, 0.0)->flops_per_sample() ==
        2 * (2 * 36 * 8) + 2 * 8 + 2 * 8 + 3 * (2 * 8 * 3) + 2 * 3 + 5 * 3 + 1);
  // A given flops_per_sample overrides the count.
  CHECK(load_torchscript(lenet5, options, ImageShape{1, 28, 28}, 10, 5e5)->flops_per_sample() == 5e5);
}

TEST_CASE("a damaged archive is an error naming the file, with printable text only") {
  TempDir dir;
  const std::string good = dir.file("mlp.pt");
  testing::write_script_mlp(good, 6, 4);
  const ImageShape shape{1, 6, 6};
  // Code that does not compile, with bytes a terminal would interpret.
  const std::string code = dir.file("code.pt");
  bool edited = false;
  testing::rewrite_archive(good, code, [&](const std::string& name, std::string bytes) {
    if (name.rfind("code/", 0) != 0 || name.find(".py") + 3 != name.size()) return bytes;
    edited = true;
    return std::string("def forward(self, x):\n    return \x1b[31m`x`\xff\xfe(\n");
  });
  REQUIRE(edited);
  std::string message;
  try {
    load_torchscript(code, TorchOptions{}, shape, 4, 1.0);
  } catch (const InputError& e) {
    message = e.what();
  }
  INFO(message);
  CHECK_THAT(message, Catch::StartsWith(code + ": not a readable TorchScript module"));
  CHECK(std::all_of(message.begin(), message.end(), [](char c) { return c >= 0x20 && c < 0x7f; }));

  // A tensor whose storage in the file is shorter than the tensor: refused, never read out of bounds.
  const std::string short_storage = dir.file("short.pt");
  edited = false;
  testing::rewrite_archive(good, short_storage, [&](const std::string& name, std::string bytes) {
    if (name != "data/0") return bytes;
    edited = true;
    return bytes.substr(0, 16);
  });
  REQUIRE(edited);
  CHECK_THROWS_WITH(load_torchscript(short_storage, TorchOptions{}, shape, 4, 1.0),
                    Catch::StartsWith(short_storage + ": tensor ") &&
                        Catch::Contains("no tensor record in the file holds that many"));
  // The unedited copy loads: the rewriting itself damages nothing.
  const std::string copy = dir.file("copy.pt");
  testing::rewrite_archive(good, copy, [](const std::string&, std::string bytes) { return bytes; });
  CHECK_NOTHROW(load_torchscript(copy, TorchOptions{}, shape, 4, 1.0));
}

TEST_CASE("an archive that crashes libtorch's reader is an error naming the file, not a crash") {
  // Found by fuzz_torchscript: a class attribute "__buffers__" misspelt in the archive's code makes libtorch
  // 1.13's type parser read through an invalid pointer (a segmentation fault inside torch::jit::load).
  TempDir dir;
  const std::string good = dir.file("mlp.pt");
  testing::write_script_mlp(good, 6, 4);
  const std::string misspelt = dir.file("misspelt.pt");
  bool edited = false;
  testing::rewrite_archive(good, misspelt, [&](const std::string& name, std::string bytes) {
    const std::size_t at = bytes.find("__buffers__");
    if (name != "code/__torch__.py" || at == std::string::npos) return bytes;
    edited = true;
    return bytes.replace(at, 11, "__buffnrs__");
  });
  REQUIRE(edited);
#if defined(__SANITIZE_ADDRESS__)
  // Under AddressSanitizer (whose allocator lays memory out differently) the invalid read is a segmentation
  // fault, which the child process turns into this error.
  CHECK_THROWS_WITH(load_torchscript(misspelt, TorchOptions{}, ImageShape{1, 6, 6}, 4, 1.0),
                    Catch::StartsWith(misspelt + ": libtorch crashes reading this archive"));
#else
  // Without it the read is undefined behaviour: in the Release build libtorch reads on and throws its own
  // parse error ("is an Atom"). Either error names the file; neither ends the process.
  CHECK_THROWS_WITH(load_torchscript(misspelt, TorchOptions{}, ImageShape{1, 6, 6}, 4, 1.0),
                    Catch::StartsWith(misspelt + ": libtorch crashes reading this archive") ||
                        Catch::StartsWith(misspelt + ": not a readable TorchScript module"));
#endif
}
