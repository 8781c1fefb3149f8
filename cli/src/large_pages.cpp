// Large allocations of the `amdahl` command on transparent huge pages.
//
// Analysing a 10-million-event profile fills about 1.5 GB of vectors; on 4 KiB pages that was
// about a million page faults and a fifth of the run's time (docs/benchmarks.md, issue 6). Linux
// backs memory with 2 MiB pages only where the program asks (madvise) when transparent huge
// pages are in "madvise" mode, the default of Ubuntu and Debian. This replaces the global
// operator new of the command (not of the injected collector, which never links this file) by
// malloc plus, for blocks of 4 MiB or more, madvise(MADV_HUGEPAGE) on the whole 2 MiB pages
// inside the block, before they are first touched. Where the kernel says no (THP "never", no
// huge pages free) nothing changes but the page size. operator delete stays the library's
// (free), which matches since this operator new returns malloc's blocks; the library's
// operator new[] calls this one.
//
// Left out under AddressSanitizer and ThreadSanitizer, whose own operator new finds
// new/delete mismatches.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define AMDAHL_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define AMDAHL_SANITIZED 1
#endif
#endif

#if !defined(AMDAHL_SANITIZED) && defined(MADV_HUGEPAGE)

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kLargeBlock = std::size_t{4} << 20;

void advise_huge_pages(void* p, std::size_t n) noexcept {
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t last = (begin + n) & ~(kHugePage - 1);
  if (last > first) (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // a hint
}

}  // namespace

void* operator new(std::size_t n) {
  for (;;) {
    if (void* p = std::malloc(n ? n : 1)) {
      if (n >= kLargeBlock) advise_huge_pages(p, n);
      return p;
    }
    std::new_handler handler = std::get_new_handler();
    if (!handler) throw std::bad_alloc();
    handler();
  }
}

#endif
