#pragma once
// Where `targets` and `table` write: a Markdown (.md) or CSV (.csv) file, or standard output (-).
#include <cstddef>
#include <string>

namespace sgdsim::app {

// True for a .csv file; false for .md or -; InputError for anything else.
bool table_is_csv(const std::string& output);

// Writes `text` to `output` (atomically; "-" is standard output) and reports it on stderr as `command`'s.
void write_table(const std::string& output, const std::string& text, const char* command, std::size_t runs,
                 std::size_t series);

}  // namespace sgdsim::app
