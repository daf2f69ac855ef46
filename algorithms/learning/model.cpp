// make_model: the scenario's "model" object -> a concrete model, checked against the training data.
#include "algorithms/learning/model.hpp"

#include <cmath>

#include "algorithms/learning/generalized_linear_model.hpp"
#include "algorithms/learning/mlp_model.hpp"
#include "algorithms/learning/softmax_model.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"

namespace sgdsim::learning {

namespace {

std::string value_text(double v) {
  std::string text = json(v).dump();
  if (text.size() > 2 && text.ends_with(".0")) text.resize(text.size() - 2);
  return text;
}

void require_classes(Spec& spec, const std::string& kind, const Dataset& train) {
  if (train.classes < 2 || train.labels.empty()) {
    spec.fail("kind", "\"" + kind + "\" needs class labels, but the training data " +
                          (train.classes == 0 ? "is a regression problem (real-valued targets)"
                                              : "has fewer than 2 classes") +
                          "; use \"linear\" for regression");
  }
}

// The class index of the positive class for a binary logistic model. On two-class data it defaults to the
// second class (label 1 or +1); on multiclass data it must be chosen, by its label as written in the data.
int positive_class(Spec& spec, const Dataset& train) {
  if (!spec.has("positive_class")) {
    if (train.classes == 2) {
      spec.echo("positive_class", train.class_values.empty() ? json(1) : json(train.class_values[1]));
      return 1;
    }
    spec.fail("positive_class",
              "the data has " + std::to_string(train.classes) +
                  " classes and \"logistic\" is binary: set \"positive_class\" to the label of "
                  "the class to separate from the others (one-vs-rest), or use \"softmax\"");
  }
  const double label = spec.number("positive_class");
  if (train.class_values.empty()) {
    if (label == std::floor(label) && label >= 0 && label < train.classes) return static_cast<int>(label);
  } else {
    for (std::size_t k = 0; k < train.class_values.size(); ++k) {
      if (train.class_values[k] == label) return static_cast<int>(k);
    }
  }
  std::string known;
  for (int k = 0; k < train.classes; ++k) {
    known += (k ? ", " : "") +
             (train.class_values.empty() ? std::to_string(k) : value_text(train.class_values[k]));
  }
  spec.fail("positive_class",
            "is " + value_text(label) + ", which is not a label of the data (labels: " + known + ")");
}

}  // namespace

std::unique_ptr<Model> make_model(Spec& spec, const Dataset& train) {
  const std::string kind = spec.choice("kind", {"logistic", "softmax", "mlp", "linear"});
  const double l2 = spec.number("l2", 1e-4, 0.0);
  if (train.samples() == 0 || train.dimension() == 0) {
    throw InputError(spec.where() + ": the training data is empty");
  }
  const std::size_t d = train.dimension();
  if (kind != "mlp" && spec.has("hidden")) spec.fail("hidden", "applies only to \"mlp\" models");
  if (kind != "logistic" && spec.has("positive_class")) {
    spec.fail("positive_class", "applies only to \"logistic\" models");
  }
  std::unique_ptr<Model> model;
  if (kind == "logistic") {
    require_classes(spec, kind, train);
    model = std::make_unique<GeneralizedLinearModel>(GeneralizedLinearModel::Link::logistic, d, l2,
                                                     positive_class(spec, train));
  } else if (kind == "linear") {
    if (train.targets.size() != train.samples()) {
      spec.fail("kind",
                "\"linear\" (least squares) needs real-valued targets, which this data set does not have "
                "(use a synthetic \"linear\" problem or a LIBSVM file)");
    }
    model = std::make_unique<GeneralizedLinearModel>(GeneralizedLinearModel::Link::linear, d, l2);
  } else if (kind == "softmax") {
    require_classes(spec, kind, train);
    model = std::make_unique<SoftmaxModel>(d, train.classes, l2);
  } else {
    require_classes(spec, kind, train);
    std::vector<std::size_t> hidden{128};
    if (spec.has("hidden")) {
      hidden.clear();
      for (std::int64_t width : spec.integers("hidden", 1, 1 << 16))
        hidden.push_back(static_cast<std::size_t>(width));
    } else {
      spec.echo("hidden", json::array({128}));
    }
    model = std::make_unique<MlpModel>(d, hidden, train.classes, l2);
  }
  spec.finish();
  return model;
}

}  // namespace sgdsim::learning
