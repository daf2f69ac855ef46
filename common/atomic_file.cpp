#include "common/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "common/error.hpp"
#include "common/regular_file.hpp"

namespace sgdsim {

void write_file_atomically(const std::filesystem::path& file, const std::string& content) {
  char host[256] = "host";
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = '\0';
  // Appending piece by piece avoids a GCC 12 -Wrestrict false positive on chained operator+.
  std::string name = ".";
  name += file.filename().string();
  name += ".tmp.";
  name += host;
  name += ".";
  name += std::to_string(getpid());
  const std::filesystem::path temp = file.parent_path() / name;
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + temp.string() + ": " + std::strerror(errno));
    out << content;
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + temp.string() + ": " + std::strerror(errno));
  }
  std::error_code error;
  std::filesystem::rename(temp, file, error);
  if (error) {
    std::filesystem::remove(temp, error);
    throw std::runtime_error("cannot rename a temporary file onto " + file.string());
  }
}

bool read_file(const std::filesystem::path& file, std::string& content) {
  try {
    content = read_regular_file(file.string(), max_text_file_bytes);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

}  // namespace sgdsim
