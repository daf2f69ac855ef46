// The libtorch networks by kind (network_kinds.hpp): the plugin builds exactly the model kinds that declare
// the capability libtorch, so adding a network on one side only fails here.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "algorithms/learning/model.hpp"
#include "algorithms/learning/torch/network_kinds.hpp"

using namespace sgdsim::learning;

TEST_CASE("every libtorch model kind has a registered network, and every network a model kind") {
  const auto names = models().kind_names("libtorch");
  const std::set<std::string> declared(names.begin(), names.end());
  const auto networks = torch_network_kinds();
  CHECK(declared == std::set<std::string>(networks.begin(), networks.end()));
  CHECK(declared.count("lenet5") == 1);  // the table is filled, not two empty sets
}

TEST_CASE("a registered network builds its model from a request") {
  TorchRequest request;
  request.kind = "resnet";
  request.depth = 8;
  request.input = ImageShape{1, 8, 8};
  request.classes = 3;
  const TorchBuild build = find_torch_network("resnet");
  REQUIRE(build != nullptr);
  const auto model = build(request, TorchOptions{});
  CHECK(model->classes() == 3);
  CHECK(model->flops_per_sample() > 0);
  CHECK(find_torch_network("resnet18") == nullptr);
  CHECK_THROWS_AS(add_torch_network("lenet5", find_torch_network("lenet5")), std::logic_error);
}
