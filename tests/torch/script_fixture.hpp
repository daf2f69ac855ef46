#pragma once
// TorchScript files for the tests, written at run time from C++ (no Python, no binary blobs in the tree).
#include <functional>
#include <string>

namespace sgdsim::learning::testing {

// A scripted two-layer perceptron for 1 x `side` x `side` images: flatten, linear to 8, ReLU, linear to
// `classes`; its parameters are drawn from torch's generator seeded with 0.
void write_script_mlp(const std::string& path, int side, int classes);

// A scripted module whose forward returns a tuple, not a tensor.
void write_script_tuple(const std::string& path);

// The perceptron of write_script_mlp with dropout (p = 0.5, in training) after its hidden layer.
void write_script_dropout(const std::string& path, int side, int classes);

// Scripted copies of the built-in LeNet-5 (1 x 28 x 28 images) and CIFAR ResNet-20 (3 x 32 x 32), written
// with torch.* operations: the same layers and shapes as algorithms/learning/torch/networks.cpp.
void write_script_lenet5(const std::string& path, int classes);
void write_script_resnet20(const std::string& path, int classes);

// A module whose forward has no operation sgdsim counts (a scaled slice of its input: 4 classes).
void write_script_uncounted(const std::string& path);

// Copies the TorchScript archive `from` to `to` record by record (names without the archive's folder),
// each record's bytes passed through `edit`; the version records are left to the writer.
void rewrite_archive(const std::string& from, const std::string& to,
                     const std::function<std::string(const std::string& name, std::string bytes)>& edit);

}  // namespace sgdsim::learning::testing
