#include "common/regular_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.hpp"

namespace sgdsim {
namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string limit_text(std::uint64_t bytes) {
  if (bytes % (std::uint64_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes % (std::uint64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

template <typename Container>
Container read_all(const std::string& path, std::uint64_t max_bytes) {
  std::uint64_t size = 0;
  Descriptor fd(open_regular_file(path, max_bytes, size));
  Container content;
  content.resize(static_cast<std::size_t>(size));
  std::size_t done = 0;
  // The file may change while it is read: stop at max_bytes whatever stat said.
  for (;;) {
    if (done == content.size()) {
      if (content.size() > max_bytes) {
        throw InputError(path + ": larger than the limit of " + limit_text(max_bytes) +
                         " for this kind of file");
      }
      content.resize(content.size() + 4096);
    }
    const ssize_t n = read(fd.get(), content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError(path + ": read error at byte offset " + std::to_string(done) + ": " +
                       std::strerror(errno));
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  content.resize(done);
  if (done > max_bytes) {
    throw InputError(path + ": larger than the limit of " + limit_text(max_bytes) + " for this kind of file");
  }
  return content;
}

}  // namespace

int open_regular_file(const std::string& path, std::uint64_t max_bytes, std::uint64_t& size) {
  if (path.empty()) throw InputError("\"\": an empty file name");
  Descriptor fd(open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) throw InputError(path + ": cannot open file: " + std::strerror(errno));
  struct stat info {};
  if (fstat(fd.get(), &info) != 0) throw InputError(path + ": cannot open file: " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) {
    throw InputError(path + ": is " + kind_of(info.st_mode) + ", expected a regular file");
  }
  size = static_cast<std::uint64_t>(info.st_size);
  if (size > max_bytes) {
    throw InputError(path + ": " + std::to_string(size) + " bytes, more than the limit of " +
                     limit_text(max_bytes) + " for this kind of file");
  }
  // Regular files never block, but the reader should not see EAGAIN semantics either.
  const int flags = fcntl(fd.get(), F_GETFL);
  if (flags >= 0) fcntl(fd.get(), F_SETFL, flags & ~O_NONBLOCK);
  return fd.release();
}

void require_regular_file(const std::string& path, std::uint64_t max_bytes) {
  std::uint64_t size = 0;
  close(open_regular_file(path, max_bytes, size));
}

std::string read_regular_file(const std::string& path, std::uint64_t max_bytes) {
  return read_all<std::string>(path, max_bytes);
}

std::vector<unsigned char> read_regular_file_bytes(const std::string& path, std::uint64_t max_bytes) {
  return read_all<std::vector<unsigned char>>(path, max_bytes);
}

}  // namespace sgdsim
