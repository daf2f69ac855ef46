#include "algorithms/learning/torch/max_pool.hpp"

#include <cmath>
#include <cstdint>

namespace sgdsim::learning {

namespace {

// Output row r of a plane, starting at input `first` = 2 r width: each window's maximum and its position,
// branch-free so that the loop vectorises. libtorch starts from -inf and takes a candidate that is larger or
// NaN; its first candidate is thus always the first value (a -inf one leaves -inf, which is that value).
[[gnu::target_clones("avx2", "default")]] void pool_row(const float* plane, std::int64_t first,
                                                        std::int64_t width, std::int64_t columns, float* out,
                                                        std::int32_t* at) {
  const float* top = plane + first;
  const float* bottom = top + width;
  for (std::int64_t c = 0; c < columns; ++c) {
    const float value[4] = {top[2 * c], top[2 * c + 1], bottom[2 * c], bottom[2 * c + 1]};
    const std::int64_t position = first + 2 * c;
    const std::int64_t index[4] = {position, position + 1, position + width, position + width + 1};
    float best = value[0];
    std::int64_t where = index[0];
    for (int q = 1; q < 4; ++q) {
      const bool take = value[q] > best || std::isnan(value[q]);
      best = take ? value[q] : best;
      where = take ? index[q] : where;
    }
    out[c] = best;
    at[c] = static_cast<std::int32_t>(where);
  }
}

class MaxPool2x2 : public torch::autograd::Function<MaxPool2x2> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* context, const torch::Tensor& input) {
    TORCH_CHECK(input.dim() == 4 && input.scalar_type() == torch::kFloat32,
                "max_pool_2x2: expected N x C x H x W floats");
    const torch::Tensor x = input.contiguous();
    const std::int64_t planes = x.size(0) * x.size(1), height = x.size(2), width = x.size(3);
    const std::int64_t rows = height / 2, columns = width / 2;
    TORCH_CHECK(rows > 0 && columns > 0, "max_pool_2x2: an input of ", height, " x ", width,
                " has no 2 x 2 window");
    torch::Tensor output = torch::empty({x.size(0), x.size(1), rows, columns}, x.options());
    // Each maximum's position within its plane, as libtorch's indices.
    torch::Tensor argmax =
        torch::empty({x.size(0), x.size(1), rows, columns}, x.options().dtype(torch::kInt32));
    const float* in = x.data_ptr<float>();
    float* out = output.data_ptr<float>();
    std::int32_t* at = argmax.data_ptr<std::int32_t>();
    for (std::int64_t p = 0; p < planes; ++p) {
      const float* plane = in + p * height * width;
      for (std::int64_t r = 0; r < rows; ++r, out += columns, at += columns)
        pool_row(plane, 2 * r * width, width, columns, out, at);
    }
    context->save_for_backward({argmax});
    context->saved_data["height"] = height;
    context->saved_data["width"] = width;
    return output;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* context,
                                                 torch::autograd::variable_list gradients) {
    const torch::Tensor argmax = context->get_saved_variables()[0];
    const std::int64_t height = context->saved_data["height"].toInt(),
                       width = context->saved_data["width"].toInt();
    const torch::Tensor g = gradients[0].contiguous();
    torch::Tensor input_gradient = torch::zeros({g.size(0), g.size(1), height, width}, g.options());
    const std::int64_t planes = g.size(0) * g.size(1), outputs = g.size(2) * g.size(3);
    const float* from = g.data_ptr<float>();
    const std::int32_t* at = argmax.data_ptr<std::int32_t>();
    float* to = input_gradient.data_ptr<float>();
    for (std::int64_t p = 0; p < planes; ++p) {
      float* plane = to + p * height * width;
      for (std::int64_t o = 0; o < outputs; ++o) plane[*at++] += *from++;  // onto +0: a -0 gradient gives +0
    }
    return {input_gradient};
  }
};

}  // namespace

torch::Tensor max_pool_2x2(const torch::Tensor& x) {
  return MaxPool2x2::apply(x);
}

}  // namespace sgdsim::learning
