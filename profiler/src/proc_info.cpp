// Reads the command line, thread names, rank and CPUs of the running process.
#include "proc_info.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
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
  // torchrun, Open MPI, MPICH/Intel MPI (PMI), PMIx, MVAPICH, Slurm's srun; read when the
  // part is written, so a forked rank that sets RANK after fork is seen with its own.
  for (const char* name : {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                           "MV2_COMM_WORLD_RANK", "SLURM_PROCID"}) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') continue;
    char* end = nullptr;
    const unsigned long r = std::strtoul(v, &end, 10);
    if (end != v && *end == '\0') return static_cast<std::uint32_t>(r);
  }
  return 0;
}

std::uint64_t os_tid() noexcept { return static_cast<std::uint64_t>(::syscall(SYS_gettid)); }

std::uint32_t parse_omp_threads(const char* v) noexcept {
  if (v == nullptr) return 0;
  while (*v == ' ' || *v == '\t') ++v;
  if (*v < '0' || *v > '9') return 0;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  while (*end == ' ' || *end == '\t') ++end;
  if (*end != '\0' && *end != ',') return 0;
  return n > 0xFFFFFFFFull ? 0xFFFFFFFFu : static_cast<std::uint32_t>(n);
}

CpuInfo read_cpu_info() noexcept {
  CpuInfo info;
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  if (online > 0) info.online = static_cast<std::uint32_t>(online);
  // A cpu_set_t holds 1024 CPUs; a bigger machine needs a bigger mask (EINVAL until it fits).
  for (int ncpus = CPU_SETSIZE; ncpus <= (1 << 20); ncpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(ncpus);
    if (set == nullptr) break;
    const std::size_t size = CPU_ALLOC_SIZE(ncpus);
    CPU_ZERO_S(size, set);
    const int rc = ::sched_getaffinity(0, size, set);
    const int err = errno;
    if (rc == 0) info.allowed = static_cast<std::uint32_t>(CPU_COUNT_S(size, set));
    CPU_FREE(set);
    if (rc == 0 || err != EINVAL) break;
  }
  info.omp_threads = parse_omp_threads(std::getenv("OMP_NUM_THREADS"));
  return info;
}

}  // namespace amdahl::profiler::detail
