#include "common/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "common/error.hpp"
#include "common/regular_file.hpp"

namespace sgdsim {
namespace {

// A character device (/dev/null, a terminal) or a FIFO (a pipe, `>(gzip > x)`) is a destination, not a file
// to replace: renaming over it would put a regular file in its place (as root, even /dev/null).
void write_through(const std::filesystem::path& file, const std::string& content) {
  const int fd = open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot write " + file.string() + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      close(fd);
      throw std::runtime_error("cannot write " + file.string() + ": " + std::strerror(error));
    }
    done += static_cast<std::size_t>(n);
  }
  if (close(fd) != 0 && errno != EINTR) {
    throw std::runtime_error("cannot write " + file.string() + ": " + std::strerror(errno));
  }
}

// True when `file` is a device or FIFO to write through; InputError for what cannot be written over.
bool destination(const std::filesystem::path& file) {
  struct stat target {};
  if (stat(file.c_str(), &target) != 0 || S_ISREG(target.st_mode)) return false;
  if (S_ISCHR(target.st_mode) || S_ISFIFO(target.st_mode)) return true;
  const char* kind = S_ISDIR(target.st_mode)    ? "a directory"
                     : S_ISBLK(target.st_mode)  ? "a block device"
                     : S_ISSOCK(target.st_mode) ? "a socket"
                                                : "not a regular file";
  throw InputError(file.string() + ": is " + kind + "; refusing to write over it");
}

}  // namespace

void check_output_file(const std::filesystem::path& file) {
  if (destination(file)) return;
  const std::filesystem::path folder = file.parent_path().empty() ? "." : file.parent_path();
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error))
    throw InputError(file.string() + ": the folder " + folder.string() + " does not exist");
}

void write_file_atomically(const std::filesystem::path& file, const std::string& content) {
  if (destination(file)) return write_through(file, content);
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
