// Not a test: a hidden case ([.fixture], not registered with ctest) that other test programs run to get a
// TorchScript file without linking libtorch themselves (tests/scenarios/schema_test.cpp).
#include <catch2/catch.hpp>

#include <cstdlib>

#include "script_fixture.hpp"

TEST_CASE("write a TorchScript module for 1x28x28 images and 10 classes to $SGDSIM_SCRIPT_OUT",
          "[.fixture]") {
  const char* out = std::getenv("SGDSIM_SCRIPT_OUT");
  REQUIRE(out != nullptr);
  sgdsim::learning::testing::write_script_mlp(out, 28, 10);
}
