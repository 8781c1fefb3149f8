// Generates, reads and (for a temporary directory) removes cpu_pipeline's dataset files.
#include "dataset.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace amdahl::cpu_pipeline {
namespace {

std::string errno_text() { return std::strerror(errno); }

std::string item_path(const std::string& dir, std::size_t i) {
  char name[32];
  std::snprintf(name, sizeof name, "/item_%06zu.bin", i);
  return dir + name;
}

void write_item(const std::string& path, std::size_t i) {
  std::uint8_t buf[kItemBytes];
  std::uint64_t x = 0x9E3779B97F4A7C15ULL * (i + 1);  // xorshift: deterministic content
  for (auto& b : buf) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    b = static_cast<std::uint8_t>(x);
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw DatasetError("cannot create " + path + ": " + errno_text());
  const ssize_t n = ::write(fd, buf, sizeof buf);
  const int saved = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(sizeof buf)) {
    errno = saved;
    throw DatasetError("cannot write " + path + ": " + errno_text());
  }
}

bool has_item(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         static_cast<std::size_t>(st.st_size) == kItemBytes;
}

}  // namespace

Dataset::Dataset(const std::string& dir, std::size_t items) {
  if (dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/cpu_pipeline.XXXXXX";
    if (::mkdtemp(templ.data()) == nullptr) {
      throw DatasetError("cannot create a temporary directory in " + templ + ": " + errno_text());
    }
    dir_ = templ;
    owned_ = true;
  } else {
    dir_ = dir;
    if (::mkdir(dir_.c_str(), 0755) != 0 && errno != EEXIST) {
      throw DatasetError("cannot create --data-dir " + dir_ + ": " + errno_text());
    }
    struct stat st {};
    if (::stat(dir_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      throw DatasetError("--data-dir " + dir_ + " is not a directory");
    }
  }
  try {
    files_.reserve(items);
    for (std::size_t i = 0; i < items; ++i) {
      files_.push_back(item_path(dir_, i));
      if (owned_ || !has_item(files_.back())) write_item(files_.back(), i);
    }
  } catch (...) {
    remove_owned();
    throw;
  }
}

Dataset::~Dataset() { remove_owned(); }

void Dataset::remove_owned() noexcept {
  if (!owned_) return;
  for (const auto& f : files_) ::unlink(f.c_str());
  files_.clear();
  ::rmdir(dir_.c_str());
  owned_ = false;
}

void Dataset::read_item(std::size_t i, std::uint8_t* out) const {
  const std::string& path = files_[i % files_.size()];
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw DatasetError("cannot open " + path + ": " + errno_text());
  std::size_t done = 0;
  while (done < kItemBytes) {
    const ssize_t n = ::read(fd, out + done, kItemBytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = n < 0 ? errno_text() : std::string("file is too short");
      ::close(fd);
      throw DatasetError("cannot read " + path + ": " + why);
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

}  // namespace amdahl::cpu_pipeline
