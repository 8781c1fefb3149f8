// Safe output files: a private temporary renamed into place, or an in-place write for what is
// not a regular file (see output_file.hpp).
#include "amdahl/format/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace amdahl::format {
namespace {

namespace fs = std::filesystem;

// The aliases of a process's descriptors: /dev/stdout, /dev/stderr, /dev/fd/N, /proc/.../fd/N
// (and anything else under /proc). Written in place even when they lead to a regular file: that
// file is the shell's redirection, to be appended to, not replaced.
bool descriptor_alias(const std::string& path) {
  std::error_code ec;
  const std::string abs = fs::absolute(fs::path(path), ec).lexically_normal().string();
  if (ec) return false;
  return abs == "/dev/stdout" || abs == "/dev/stderr" || abs.rfind("/dev/fd/", 0) == 0 || abs.rfind("/proc/", 0) == 0;
}

std::string why(int e) { return std::strerror(e); }

}  // namespace

OutputFile::OutputFile(std::string path, bool in_place_ok) : path_(std::move(path)) {
  if (path_.empty()) throw OutputError("cannot write to an empty file name");
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) throw OutputError("cannot write " + path_ + ": it is a directory");
  if ((exists && !S_ISREG(st.st_mode)) || descriptor_alias(path_)) {
    if (!in_place_ok)
      throw OutputError("cannot write " + path_ + ": it is not a regular file (a profile is an SQLite database: give a file name)");
    in_place_ = true;
    append_ = exists && S_ISREG(st.st_mode);
    write_path_ = path_;
    return;
  }
  // A temporary of our own in the same directory (so the rename is atomic), created
  // exclusively: a name another run or another program uses is never taken, nor removed.
  std::string tmp = path_ + ".tmp-XXXXXX";
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) throw OutputError("cannot write " + path_ + ": " + why(errno));
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);  // mkstemp makes it 0600; the output gets the usual permissions
  ::close(fd);
  write_path_ = tmp;
}

OutputFile::~OutputFile() {
  if (!committed_ && !in_place_ && !write_path_.empty()) ::unlink(write_path_.c_str());
}

void OutputFile::write_all(std::string_view bytes) {
  const int flags = in_place_ ? (append_ ? O_WRONLY | O_APPEND : O_WRONLY | O_CREAT) : O_WRONLY | O_TRUNC;
  const int fd = ::open(write_path_.c_str(), flags | O_CLOEXEC, 0666);
  if (fd < 0) throw OutputError("cannot write " + path_ + ": " + why(errno));
  const char* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : EIO;
      ::close(fd);
      throw OutputError("cannot write " + path_ + ": " + why(e) + (in_place_ ? "" : " (the previous file, if any, is unchanged)"));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0 && errno != EINTR) throw OutputError("cannot write " + path_ + ": " + why(errno));
}

void OutputFile::commit(bool overwrite) {
  if (committed_) return;
  if (in_place_) {
    committed_ = true;
    return;
  }
  if (!overwrite) {
    if (::link(write_path_.c_str(), path_.c_str()) == 0) {
      ::unlink(write_path_.c_str());
      committed_ = true;
      return;
    }
    if (errno == EEXIST) throw OutputError("refusing to overwrite " + path_ + ": the file already exists");
    // File systems without hard links: rename after an existence check (racy, the best left).
    struct stat st {};
    if (::lstat(path_.c_str(), &st) == 0) throw OutputError("refusing to overwrite " + path_ + ": the file already exists");
  }
  if (std::rename(write_path_.c_str(), path_.c_str()) != 0) throw OutputError("cannot write " + path_ + ": " + why(errno));
  committed_ = true;
}

bool written_in_place(const std::string& path) {
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  return (exists && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) || descriptor_alias(path);
}

void write_file(const std::string& path, std::string_view bytes, bool overwrite) {
  OutputFile out(path);
  out.write_all(bytes);
  out.commit(overwrite);
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (a.empty() || b.empty() || ::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace amdahl::format
