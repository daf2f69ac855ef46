// Memory sizes: the units read, and the message, which offers "0: no limit" only where 0 means that.
#include <catch2/catch.hpp>

#include <string>

#include "common/error.hpp"
#include "common/memory_limit.hpp"

using namespace sgdsim;

TEST_CASE("memory sizes read bytes and decimal and binary units") {
  CHECK(parse_memory_size("1e9", "x") == 1e9);
  CHECK(parse_memory_size("25MB", "x") == 25e6);
  CHECK(parse_memory_size("512MiB", "x") == 512.0 * 1024 * 1024);
  CHECK(parse_memory_limit("0", "x") == 0);
}

TEST_CASE("a bad memory size names its origin, and only a limit offers 0 as no limit") {
  const auto message = [](auto parse) {
    try {
      parse();
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  const std::string size = message([] { return parse_memory_size("lots", "$.algorithm.bucket_cap"); });
  CHECK_THAT(size, Catch::StartsWith("$.algorithm.bucket_cap: \"lots\" is not a memory size"));
  CHECK_THAT(size, !Catch::Contains("no limit"));
  const std::string limit = message([] { return parse_memory_limit("-1GB", "--memory-limit"); });
  CHECK_THAT(limit, Catch::StartsWith("--memory-limit: \"-1GB\" is not a memory size"));
  CHECK_THAT(limit, Catch::Contains("0: no limit"));
}
