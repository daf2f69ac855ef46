// The dataset kind libsvm: LIBSVM text files (a training file and an optional test file).
#include <algorithm>

#include "algorithms/learning/libsvm.hpp"
#include "algorithms/learning/problem.hpp"
#include "common/error.hpp"
#include "common/spec.hpp"

namespace sgdsim::learning {
namespace {

Problem load_libsvm(Spec& data, std::uint64_t, const std::string& base_dir) {
  const std::string train_path = resolve_path(data.string("path"), base_dir);
  std::string test_path;
  if (data.has("test_path")) test_path = resolve_path(data.string("test_path"), base_dir);
  const auto features = static_cast<std::size_t>(data.integer("features"));
  const SparseSamples train = read_libsvm_file(train_path);
  const SparseSamples test = test_path.empty() ? SparseSamples{} : read_libsvm_file(test_path);
  std::size_t dimension = std::max(train.dimension, test.dimension);
  if (features > 0) {
    if (dimension > features) {
      const bool in_train = train.dimension > features;
      data.fail("features", "is " + std::to_string(features) + " but " + (in_train ? train_path : test_path) +
                                " uses feature index " +
                                std::to_string(in_train ? train.dimension : test.dimension));
    }
    dimension = features;
  }
  if (dimension == 0) throw InputError(train_path + ": no sample has any feature");
  const LabelCoding coding = test_path.empty() ? label_coding({&train}) : label_coding({&train, &test});
  Problem problem;
  problem.train = densify(train, dimension, coding, train_path);
  problem.test = densify(test, dimension, coding, test_path.empty() ? train_path : test_path);
  problem.description = describe_problem("libsvm " + train_path, problem);
  return problem;
}

const bool registered_libsvm_dataset = datasets().add(
    {"libsvm",
     "A LIBSVM text file (\"label index:value ...\"): classification when the labels are few integers, "
     "regression otherwise.",
     {keys::path("path", "The training file."),
      keys::path("test_path", "The test file (without it, the training set is also the test set).")
          .may_be_absent(),
      keys::integer("features", "The number of features (0: the largest index in the files).")
          .fallback_to(0)
          .between(0, 2147483648.0)},
     {}},
    load_libsvm);

}  // namespace
}  // namespace sgdsim::learning
