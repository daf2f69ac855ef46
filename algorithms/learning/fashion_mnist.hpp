#pragma once
// Fashion-MNIST and MNIST. Fashion-MNIST (Xiao, Rasul and Vollgraf 2017): 60000 training and 10000 test
// images of 28x28 grey pixels in 10 classes, as the four IDX files that Debian's dataset-fashion-mnist
// package installs.
#include <string>

#include "algorithms/learning/dataset.hpp"

namespace sgdsim::learning {

inline constexpr const char* default_fashion_mnist_dir = "/usr/share/datasets/fashion-mnist";

// Reads train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz, t10k-images-idx3-ubyte.gz and
// t10k-labels-idx1-ubyte.gz from `dir` (each may also be present uncompressed, without ".gz"). Pixels are
// scaled to [0, 1]. Checks magic numbers, 28x28 images, matching image and label counts and labels below 10.
// Sets Dataset::image to 1x28x28.
Problem load_fashion_mnist(const std::string& dir);

// MNIST (LeCun et al. 1998) in the same four IDX files with the same names (train-images-idx3-ubyte[.gz],
// ...), read and checked exactly like Fashion-MNIST. Debian packages no MNIST, so there is no default folder.
Problem load_mnist(const std::string& dir);

}  // namespace sgdsim::learning
