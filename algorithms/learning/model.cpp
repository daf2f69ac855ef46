// The model family: kinds register themselves beside their implementation (e.g. softmax_model.cpp).
#include "algorithms/learning/model.hpp"

#include "common/error.hpp"
#include "common/spec.hpp"

namespace sgdsim::learning {

keys::Registry<ModelFactory>& models() {
  static keys::Registry<ModelFactory> family(
      "model", "kind", "The model every node trains: one flat parameter vector, its loss and gradient.",
      {keys::number("l2", "Weight of the l2 regulariser (l2 / 2) ||θ||², part of the loss.")
           .fallback_to(1e-4)
           .at_least(0)},
      std::nullopt, {},
      {{"convex", "A unique optimum f*: the trace may have a suboptimality column."},
       {"needs_class_labels", "Classifies: the data must have class labels."},
       {"libtorch",
        "Runs in libtorch: the plugin builds it from the network registered under the same name "
        "(algorithms/learning/torch/network_kinds.hpp)."}});
  return family;
}

std::unique_ptr<Model> make_model(Spec& spec, const Dataset& train, const std::string& base_dir) {
  if (train.samples() == 0 || train.dimension() == 0) {
    throw InputError(spec.where() + ": the training data is empty");
  }
  const std::string& kind = spec.kind_name();
  if (spec.kind()->has("needs_class_labels") && (train.classes < 2 || train.labels.empty())) {
    spec.fail("kind", "\"" + kind + "\" needs class labels, but the training data " +
                          (train.classes == 0 ? "is a regression problem (real-valued targets)"
                                              : "has fewer than 2 classes") +
                          "; use \"linear\" for regression");
  }
  auto model = models().factory(kind)(spec, train, base_dir);
  spec.finish();
  return model;
}

}  // namespace sgdsim::learning
