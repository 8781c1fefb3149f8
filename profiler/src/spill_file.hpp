// Spilling record storage to disk past the memory budget (AMDAHL_MEMORY_BUDGET_MB). By default
// (AMDAHL_ON_FULL=spill) a record buffer whose next chunk does not fit the budget gets that chunk
// as a shared mapping of the process's spill file, an unlinked file in the part directory (so
// nothing is left behind, whatever way the process ends). The chunk works as any other (records
// never move, readers look them up lock-free); the part writer and the flusher hand its pages
// back to the kernel (MADV_DONTNEED: the data stays in the file), so memory stays near the budget
// however many ranges come. Disk space is reserved before a chunk is mapped (fallocate), so a
// full disk means a dropped (counted) record, never a SIGBUS. AMDAHL_ON_FULL=drop drops and counts
// past the budget instead, as before.
#pragma once

#include <cstddef>
#include <cstdint>

namespace amdahl::profiler::detail {

// Set once at collector load: the part directory and whether to spill.
void spill_configure(const char* part_dir, bool enabled) noexcept;
bool spill_enabled() noexcept;
// A page-aligned region of `bytes` (rounded up to pages) of the spill file, mapped read-write and
// zero-filled; nullptr when it cannot be had (the caller drops and counts). Lock-free.
void* spill_map(std::size_t bytes) noexcept;
// Bytes of the spill file handed out so far (this process, since its fork).
std::uint64_t spill_bytes() noexcept;
// Hands the pages of a spilled region back to the kernel (their data stays in the file).
void spill_evict(void* addr, std::size_t bytes) noexcept;
// The whole pages of [begin, end) inside a spilled region, handed back the same way: the owner
// of a buffer calls it behind its writes, so a fast writer's spilled pages do not pile up in
// memory between two flusher passes.
void spill_evict_pages(void* begin, void* end) noexcept;
// Page-rounded size of a spilled region of `bytes` (what spill_map mapped; munmap needs it).
std::size_t spill_rounded(std::size_t bytes) noexcept;
// In the fork child: the parent's spill file is the parent's (shared mappings); the child opens
// its own when it first needs one.
void spill_after_fork_child() noexcept;

}  // namespace amdahl::profiler::detail
