// Reads the command line, thread names and rank of the running process.
#include "proc_info.hpp"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace amdahl::profiler::detail {
namespace {

std::string read_small_file(const char* path) noexcept {
  std::string out;
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return out;
  try {
    char buf[4096];
    for (;;) {
      const ssize_t r = ::read(fd, buf, sizeof buf);
      if (r <= 0) break;
      out.append(buf, static_cast<std::size_t>(r));
      if (out.size() > (std::size_t{1} << 20)) break;  // a sane bound on a command line
    }
  } catch (...) {
    out.clear();
  }
  ::close(fd);
  return out;
}

}  // namespace

std::string read_command_line() noexcept {
  std::string raw = read_small_file("/proc/self/cmdline");
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  for (char& c : raw) {
    if (c == '\0') c = ' ';
  }
  return raw;
}

std::string read_thread_comm(std::uint64_t tid) noexcept {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%llu/comm",
                static_cast<unsigned long long>(tid));
  std::string s = read_small_file(path);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s;
}

std::uint32_t read_rank() noexcept {
  for (const char* name : {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK"}) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') continue;
    char* end = nullptr;
    const unsigned long r = std::strtoul(v, &end, 10);
    if (end != v && *end == '\0') return static_cast<std::uint32_t>(r);
  }
  return 0;
}

std::uint64_t os_tid() noexcept { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

}  // namespace amdahl::profiler::detail
