#pragma once
// Writing a file so that readers see either the old content or the new, never a partial one: the text goes to
// a temporary sibling (named after host and process, so concurrent writers on a shared file system do not
// collide) that is then renamed over the target. A character device or FIFO at the path is written through
// (never replaced); a directory, block device or socket there is an InputError.
#include <filesystem>
#include <string>

namespace sgdsim {

void write_file_atomically(const std::filesystem::path& file, const std::string& content);

// The InputErrors write_file_atomically would raise for `file`, and a missing folder, checked before any
// work: for commands that measure or compute at length before they write.
void check_output_file(const std::filesystem::path& file);

// Reads the whole content of a regular file; false when it cannot be read (or is a FIFO, device, ...).
bool read_file(const std::filesystem::path& file, std::string& content);

}  // namespace sgdsim
