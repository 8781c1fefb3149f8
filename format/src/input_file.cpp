// InputFile: stat, open with O_NONBLOCK, fstat; regular files of a bounded size only
// (include/amdahl/format/input_file.hpp).
#include "amdahl/format/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace amdahl::format {
namespace {

std::string kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void refuse(const std::string& what, const std::string& path, const std::string& why) {
  throw InputFileError("cannot read " + what + " " + path + ": " + why, why);
}

void check_mode(const struct stat& sb, const std::string& what, const std::string& path) {
  if (!S_ISREG(sb.st_mode))
    refuse(what, path, "it is " + kind_of(sb.st_mode) + "; only a regular file is read");
}

std::string mib(std::uint64_t bytes) {
  return std::to_string((bytes + (1u << 20) - 1) >> 20) + " MiB";
}

}  // namespace

InputFile::InputFile(const std::string& path, const std::string& what, std::uint64_t max_bytes) {
  if (path.empty()) refuse(what, "''", "empty file name");
  struct stat sb {};
  if (::stat(path.c_str(), &sb) != 0) {
    const int e = errno;
    refuse(what, path, e == ENOENT ? "no such file" : e == EACCES ? "permission denied" : std::strerror(e));
  }
  check_mode(sb, what, path);
  // O_NONBLOCK: if the path became a FIFO since the stat, the open returns at once instead of
  // waiting for a writer; the fstat below then refuses it.
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd_ < 0) {
    const int e = errno;
    refuse(what, path, e == ENOENT ? "no such file" : e == EACCES ? "permission denied" : std::strerror(e));
  }
  if (::fstat(fd_, &sb) != 0) {
    const int e = errno;
    ::close(fd_);
    fd_ = -1;
    refuse(what, path, std::strerror(e));
  }
  try {
    check_mode(sb, what, path);
    size_ = static_cast<std::uint64_t>(sb.st_size);
    if (size_ > max_bytes)
      refuse(what, path, "it has " + mib(size_) + ", more than the " + mib(max_bytes) + " this input may have");
  } catch (...) {
    ::close(fd_);
    fd_ = -1;
    throw;
  }
  // Regular-file reads never block; clear O_NONBLOCK anyway for readers that expect blocking IO.
  const int fl = ::fcntl(fd_, F_GETFL);
  if (fl >= 0) ::fcntl(fd_, F_SETFL, fl & ~O_NONBLOCK);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

int InputFile::release() noexcept {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

std::string InputFile::read_all(const std::string& path) {
  std::string out;
  out.resize(static_cast<std::size_t>(size_));
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::read(fd_, out.data() + got, out.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputFileError("cannot read " + path + ": " + std::strerror(errno), std::strerror(errno));
    }
    if (n == 0) break;  // shrunk while read
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return out;
}

std::string read_input_file(const std::string& path, const std::string& what, std::uint64_t max_bytes) {
  InputFile f(path, what, max_bytes);
  return f.read_all(path);
}

bool is_regular_file_entry(const std::string& path) noexcept {
  struct stat sb {};
  return ::lstat(path.c_str(), &sb) == 0 && S_ISREG(sb.st_mode);
}

}  // namespace amdahl::format
