// Facts about the running process read from /proc and the environment: the command line,
// thread names, and the data-parallel rank.
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

}  // namespace amdahl::profiler::detail
