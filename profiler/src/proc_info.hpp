// Facts about the running process read from /proc, the kernel and the environment: the command
// line, thread names, the data-parallel rank, and the CPUs it may use.
#pragma once

#include <cstdint>
#include <string>

namespace amdahl::profiler::detail {

// /proc/self/cmdline with arguments joined by single spaces ("" if unreadable).
std::string read_command_line() noexcept;
// /proc/self/task/<tid>/comm without the trailing newline ("" if the thread is gone).
std::string read_thread_comm(std::uint64_t tid) noexcept;
// RANK, else OMPI_COMM_WORLD_RANK, else PMI_RANK, else 0.
std::uint32_t read_rank() noexcept;
// gettid().
std::uint64_t os_tid() noexcept;

// The CPUs of the process (format::ProcessRec cpus_online, cpus_allowed, omp_threads); 0 where
// unknown.
struct CpuInfo {
  std::uint32_t online = 0;       // sysconf(_SC_NPROCESSORS_ONLN)
  std::uint32_t allowed = 0;      // CPU_COUNT of sched_getaffinity(0): taskset, cgroup cpuset
  std::uint32_t omp_threads = 0;  // parse_omp_threads(OMP_NUM_THREADS)
};
CpuInfo read_cpu_info() noexcept;
// OMP_NUM_THREADS's first (outermost) number ("8", "4,2" -> 4); 0 when unset, empty or invalid.
std::uint32_t parse_omp_threads(const char* v) noexcept;

}  // namespace amdahl::profiler::detail
