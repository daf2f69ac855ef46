// No protocol or model kind is named outside its own registration in the layers that wire and run a scenario:
// what they need to know of a kind, the kind declares (capabilities, ProtocolFactory). The kind names come
// from the registries, so a new kind is covered without a list here.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/learning/model.hpp"
#include "algorithms/protocols/protocol.hpp"

using namespace sgdsim;
namespace fs = std::filesystem;

TEST_CASE("no protocol or model kind name is written as a string in scenarios/, sim/ or observation/") {
  std::vector<std::string> names = protocols::protocols().kind_names();
  for (const std::string& model : learning::models().kind_names()) names.push_back(model);
  REQUIRE(names.size() >= 8);
  std::size_t files = 0;
  for (const char* layer : {"scenarios", "sim", "observation"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(SGDSIM_SOURCE_DIR) / layer)) {
      const std::string extension = entry.path().extension().string();
      if (!entry.is_regular_file() || (extension != ".cpp" && extension != ".hpp")) continue;
      ++files;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      for (const std::string& name : names) {
        INFO(entry.path().string() << " names the kind \"" << name << "\"; ask the kind (a capability or "
                                   << "a function it registers) instead");
        CHECK(text.str().find('"' + name + '"') == std::string::npos);
      }
    }
  }
  CHECK(files > 10);
}
