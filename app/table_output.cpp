#include "app/table_output.hpp"

#include <cstdio>

#include "common/atomic_file.hpp"
#include "common/error.hpp"

namespace sgdsim::app {
namespace {
bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

bool table_is_csv(const std::string& output) {
  if (ends_with(output, ".csv")) return true;
  if (output == "-" || ends_with(output, ".md")) return false;
  throw InputError(output + ": the table must be a .md or .csv file, or - for standard output");
}

void write_table(const std::string& output, const std::string& text, const char* command, std::size_t runs,
                 std::size_t series) {
  if (output == "-") {
    std::fputs(text.c_str(), stdout);
    return;
  }
  write_file_atomically(output, text);
  std::fprintf(stderr, "%s: %zu runs in %zu series -> %s\n", command, runs, series, output.c_str());
}

}  // namespace sgdsim::app
