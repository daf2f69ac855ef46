#include "algorithms/compression/layout.hpp"

#include <stdexcept>

namespace sgdsim::compression {

Layout::Layout(std::vector<Tensor> tensors) : tensors_(std::move(tensors)) {
  for (const Tensor& t : tensors_) {
    if (t.size() == 0) throw std::invalid_argument("layout: a tensor has no coordinates");
    dimension_ += t.size();
  }
}

std::vector<Tensor> Layout::of(std::size_t d) const {
  if (!tensors_.empty() && dimension_ == d) return tensors_;
  return {Tensor{1, d}};
}

}  // namespace sgdsim::compression
