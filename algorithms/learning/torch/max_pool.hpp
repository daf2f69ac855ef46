#pragma once
// Max pooling over 2 x 2 windows with stride 2 (LeNet-5's), as libtorch computes it, in a loop of our own:
// libtorch's generic CPU kernel took about a fifth of a LeNet-5 run (docs/performance.md). Included only by
// this folder's .cpp files.
#include <torch/torch.h>

namespace sgdsim::learning {

// at::max_pool2d(x, 2) of a float N x C x H x W tensor, bit for bit, forward and backward: each output is the
// first of its window's largest inputs in row-major order (a NaN counts as larger than anything), and the
// backward pass adds each output's gradient onto a zero at that input, as libtorch's does. Odd H or W drop
// their last row or column.
torch::Tensor max_pool_2x2(const torch::Tensor& x);

}  // namespace sgdsim::learning
