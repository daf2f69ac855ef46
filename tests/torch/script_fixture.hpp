#pragma once
// TorchScript files for the tests, written at run time from C++ (no Python, no binary blobs in the tree).
#include <string>

namespace sgdsim::learning::testing {

// A scripted two-layer perceptron for 1 x `side` x `side` images: flatten, linear to 8, ReLU, linear to
// `classes`; its parameters are drawn from torch's generator seeded with 0.
void write_script_mlp(const std::string& path, int side, int classes);

// A scripted module whose forward returns a tuple, not a tensor.
void write_script_tuple(const std::string& path);

}  // namespace sgdsim::learning::testing
