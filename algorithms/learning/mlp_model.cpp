#include "algorithms/learning/mlp_model.hpp"

#include "algorithms/learning/softmax_model.hpp"

#include "common/spec.hpp"

namespace sgdsim::learning {

MlpModel::MlpModel(std::size_t features, std::vector<std::size_t> hidden, int classes, double l2)
    : BlockModel(l2) {
  widths_.push_back(features);
  widths_.insert(widths_.end(), hidden.begin(), hidden.end());
  widths_.push_back(static_cast<std::size_t>(classes));
  for (std::size_t l = 0; l + 1 < widths_.size(); ++l) {
    offsets_.push_back(dimension_);
    dimension_ += widths_[l + 1] * widths_[l] + widths_[l + 1];
  }
}

void MlpModel::initialize(std::span<float> params, Rng& rng) const {
  const std::size_t layers = offsets_.size();
  for (std::size_t l = 0; l < layers; ++l) {
    const std::size_t in = widths_[l], out = widths_[l + 1];
    const double gain = l + 1 < layers ? 2.0 : 1.0;
    const double scale = std::sqrt(gain / static_cast<double>(in));
    float* w = params.data() + offsets_[l];
    for (std::size_t k = 0; k < in * out; ++k) w[k] = static_cast<float>(scale * rng.normal());
    std::fill(w + in * out, w + in * out + out, 0.0f);
  }
}

std::vector<Model::Shape> MlpModel::tensor_shapes() const {
  std::vector<Shape> shapes;
  for (std::size_t l = 0; l + 1 < widths_.size(); ++l) {
    shapes.push_back({widths_[l + 1], widths_[l]});
    shapes.push_back({1, widths_[l + 1]});
  }
  return shapes;
}

// Multiply-add = 2 flops, exp/log = 1. Layer n -> m: forward 2nm + m, backward dW 2nm and db m, and except
// for the first layer the input gradient 2nm. Hidden layers add m for ReLU forward and m for its mask
// backward; the output adds 4K + 1 for softmax and loss and K for p - onehot(y).
double MlpModel::hidden_floats_per_sample() const {
  double floats = 0;  // every hidden layer's activations and their gradients
  for (std::size_t l = 1; l + 1 < widths_.size(); ++l) floats += 2 * static_cast<double>(widths_[l]);
  return floats;
}

double MlpModel::flops_per_sample() const {
  double flops = 0;
  const std::size_t layers = offsets_.size();
  for (std::size_t l = 0; l < layers; ++l) {
    const double n = static_cast<double>(widths_[l]), m = static_cast<double>(widths_[l + 1]);
    flops += 4.0 * n * m + 2.0 * m;
    if (l > 0) flops += 2.0 * n * m;
    if (l + 1 < layers) flops += 2.0 * m;
  }
  const double k = static_cast<double>(widths_.back());
  return flops + 5.0 * k + 1.0;
}

template <typename T>
BlockSums MlpModel::block(const T* params, const RowMatrix<T>& x, const Dataset& data,
                          std::span<const std::size_t> rows, T* gradient) const {
  const std::size_t layers = offsets_.size();
  const auto weights = [&](std::size_t l) {
    return Eigen::Map<const RowMatrix<T>>(params + offsets_[l], static_cast<Eigen::Index>(widths_[l + 1]),
                                          static_cast<Eigen::Index>(widths_[l]));
  };
  const auto bias = [&](std::size_t l) {
    return Eigen::Map<const Vector<T>>(params + offsets_[l] + widths_[l + 1] * widths_[l],
                                       static_cast<Eigen::Index>(widths_[l + 1]));
  };
  // activations[l] is the output of layer l (after ReLU for hidden layers, the scores for the last one).
  std::vector<RowMatrix<T>> activations(layers);
  for (std::size_t l = 0; l < layers; ++l) {
    const RowMatrix<T>& input = l == 0 ? x : activations[l - 1];
    RowMatrix<T>& out = activations[l];
    out.noalias() = input * weights(l).transpose();
    out.rowwise() += bias(l).transpose();
    if (l + 1 < layers) out = out.cwiseMax(T(0));
  }
  BlockSums sums;
  RowMatrix<T>& delta = activations.back();
  sums.loss = softmax_cross_entropy(delta, data, rows, sums.correct);
  if (!gradient) return sums;
  for (std::size_t i = 0; i < rows.size(); ++i)
    delta(static_cast<Eigen::Index>(i), data.labels[rows[i]]) -= T(1);
  // Backpropagation: delta holds dloss/d(pre-activation) of layer l, summed over the block's samples below.
  RowMatrix<T> current = std::move(delta);
  for (std::size_t l = layers; l-- > 0;) {
    const RowMatrix<T>& input = l == 0 ? x : activations[l - 1];
    const auto out = static_cast<Eigen::Index>(widths_[l + 1]), in = static_cast<Eigen::Index>(widths_[l]);
    Eigen::Map<RowMatrix<T>> gw(gradient + offsets_[l], out, in);
    Eigen::Map<Vector<T>> gb(gradient + offsets_[l] + widths_[l + 1] * widths_[l], out);
    gw.noalias() += current.transpose() * input;
    gb += current.colwise().sum().transpose();
    if (l == 0) break;
    RowMatrix<T> previous = current * weights(l);
    // ReLU's derivative: pass where the unit was active (its output is positive).
    previous = (input.array() > T(0)).select(previous, T(0));
    current = std::move(previous);
  }
  return sums;
}

template BlockSums MlpModel::block<float>(const float*, const RowMatrix<float>&, const Dataset&,
                                          std::span<const std::size_t>, float*) const;
template BlockSums MlpModel::block<double>(const double*, const RowMatrix<double>&, const Dataset&,
                                           std::span<const std::size_t>, double*) const;

namespace {
const bool registered_mlp_model = models().add(
    {"mlp",
     "A fully connected network with ReLU hidden layers and a softmax output.",
     {keys::integers("hidden", "Widths of the hidden layers.")
          .fallback_to(json::array({128}))
          .between(1, 65536)},
     {"needs_class_labels"}},
    [](Spec& spec, const Dataset& train, const std::string&) {
      std::vector<std::size_t> hidden;
      for (std::int64_t width : spec.integers("hidden")) hidden.push_back(static_cast<std::size_t>(width));
      return std::make_unique<MlpModel>(train.dimension(), hidden, train.classes, spec.number("l2"));
    });
}  // namespace

}  // namespace sgdsim::learning
