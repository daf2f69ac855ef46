// sgdsim's unit strings are SimGrid's: every expectation below is checked against SimGrid's own parser,
// called here directly, rather than against numbers written by hand.
#include <catch2/catch.hpp>

#include <simgrid/Exception.hpp>
#include <xbt/parse_units.hpp>

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/units.hpp"

using namespace sgdsim;

namespace {

using Ours = std::function<std::optional<double>(const std::string&)>;
using Theirs = std::function<double(const std::string&, int, const std::string&, const std::string&)>;

enum class Expect {
  same,        // SimGrid accepts it; sgdsim returns SimGrid's value, bit for bit
  rejected,    // SimGrid throws ParseError; sgdsim has no value
  no_unit,     // SimGrid takes it in its default unit (deprecated, with a warning); sgdsim has no value
  not_finite,  // SimGrid returns inf or nan; sgdsim has no value
};

struct Case {
  std::string text;
  Expect expect;
};

void check(const Ours& ours, const Theirs& theirs, const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    INFO("\"" << c.text << "\"");
    const std::optional<double> mine = ours(c.text);
    if (c.expect == Expect::rejected) {
      CHECK_THROWS_AS(theirs("", 0, c.text, ""), simgrid::ParseError);
      CHECK_FALSE(mine.has_value());
      continue;
    }
    double simgrid = 0;
    REQUIRE_NOTHROW(simgrid = theirs("", 0, c.text, ""));
    INFO("SimGrid: " << simgrid);
    switch (c.expect) {
      case Expect::same:
        REQUIRE(mine.has_value());
        CHECK(*mine == simgrid);
        break;
      case Expect::no_unit:
        CHECK(std::isfinite(simgrid));
        CHECK_FALSE(mine.has_value());
        break;
      case Expect::not_finite:
        CHECK_FALSE(std::isfinite(simgrid));
        CHECK_FALSE(mine.has_value());
        break;
      case Expect::rejected:
        break;
    }
  }
}

}  // namespace

TEST_CASE("bandwidth strings are exactly SimGrid's") {
  check(units::bandwidth, xbt_parse_get_bandwidth,
        {{"100Mbps", Expect::same},    {"10MBps", Expect::same},        {"1KiBps", Expect::same},
         {"1Gibps", Expect::same},     {"1kbps", Expect::same},         {"1EiBps", Expect::same},
         {".5Mbps", Expect::same},     {"1e3Mbps", Expect::same},       {" 5Gbps", Expect::same},
         {"+1Mbps", Expect::same},     {"0x10Mbps", Expect::same},      {"0Mbps", Expect::same},
         {"-1Mbps", Expect::same},     {"5bps", Expect::same},          {"1Kbps", Expect::rejected},
         {"1 Mbps", Expect::rejected}, {"5Gbps ", Expect::rejected},    {"1mbps", Expect::rejected},
         {"1M bps", Expect::rejected}, {"100Mb", Expect::rejected},     {"Mbps", Expect::rejected},
         {"", Expect::rejected},       {"1e400Mbps", Expect::rejected}, {"100", Expect::no_unit},
         {"0", Expect::no_unit},       {"infMbps", Expect::not_finite}, {"nanBps", Expect::not_finite}});
}

TEST_CASE("duration strings are exactly SimGrid's") {
  check(units::duration, xbt_parse_get_time,
        {{"500us", Expect::same},
         {"1ms", Expect::same},
         {"2s", Expect::same},
         {"1.5m", Expect::same},
         {"1h", Expect::same},
         {"1d", Expect::same},
         {"1w", Expect::same},
         {"3ns", Expect::same},
         {"7ps", Expect::same},
         {"0s", Expect::same},
         {"-1ms", Expect::same},
         {"1sec", Expect::rejected},
         {"5 parsecs", Expect::rejected},
         {"1 ms", Expect::rejected},
         {"1Ms", Expect::rejected},
         {"", Expect::rejected},
         {"1", Expect::no_unit},
         {"0", Expect::no_unit},
         {"infs", Expect::not_finite}});
}

TEST_CASE("speed strings are exactly SimGrid's") {
  check(units::speed, xbt_parse_get_speed,
        {{"10Gf", Expect::same},
         {"1kf", Expect::same},
         {"2.5Tf", Expect::same},
         {"1flops", Expect::same},
         {"1gigaflops", Expect::same},
         {"0Gf", Expect::same},
         {"1Gflops", Expect::rejected},
         {"1Kf", Expect::rejected},
         {"1GF", Expect::rejected},
         {"1Kif", Expect::rejected},
         {"fast", Expect::rejected},
         {"10 Gf", Expect::rejected},
         {"5e9", Expect::no_unit},
         {"infGf", Expect::not_finite}});
}

TEST_CASE("a unit string with a NUL inside has no value, though SimGrid would read up to the NUL") {
  const std::string text("1Mbps\0junk", 10);
  CHECK_NOTHROW(xbt_parse_get_bandwidth("", 0, text, ""));
  CHECK_FALSE(units::bandwidth(text).has_value());
}

TEST_CASE("values print in human units that read back as SimGrid strings") {
  CHECK(units::bandwidth_text(1.25e9) == "10Gbps");
  CHECK(units::bytes_rate_text(1.25e9) == "1.25GBps");
  CHECK(units::bandwidth_text(12.5e6) == "100Mbps");
  CHECK(units::duration_text(0.0005) == "500us");
  CHECK(units::duration_text(2) == "2s");
  CHECK(units::duration_text(0) == "0s");
  CHECK(units::speed_text(2.3127834e10) == "23.13Gf");
  CHECK(units::si_text(999.96) == "1k");
  CHECK(units::si_text(3) == "3");
  for (const double bytes : {1.0, 125.0, 1.25e5, 1e8, 3.3e11}) {
    INFO(bytes);
    const auto back = units::bandwidth(units::bandwidth_text(bytes));
    REQUIRE(back.has_value());
    CHECK(*back == Approx(bytes).epsilon(1e-3));
  }
}
