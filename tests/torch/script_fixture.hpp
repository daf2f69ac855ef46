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

// Copies the TorchScript archive `from` to `to` record by record (names without the archive's folder),
// each record's bytes passed through `edit`; the version records are left to the writer.
void rewrite_archive(const std::string& from, const std::string& to,
                     const std::function<std::string(const std::string& name, std::string bytes)>& edit);

}  // namespace sgdsim::learning::testing
