// The spill file (spill_file.hpp): an unlinked file in the part directory, grown by lock-free
// offset reservation, each chunk's disk space reserved with fallocate before it is mapped.
#include "spill_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "log.hpp"

namespace amdahl::profiler::detail {
namespace {

std::string* g_dir = nullptr;  // never freed: chunks may be asked for while the process exits
bool g_enabled = false;
std::atomic<int> g_fd{-1};
std::atomic<std::uint64_t> g_offset{0};
std::atomic<bool> g_warned{false};

std::size_t page_size() noexcept {
  static const long p = ::sysconf(_SC_PAGESIZE);
  return p > 0 ? static_cast<std::size_t>(p) : 4096;
}

int open_spill_file() noexcept {
  int fd = -1;
#ifdef O_TMPFILE
  fd = ::open(g_dir->c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
  if (fd < 0) {  // a filesystem without O_TMPFILE: create, then unlink at once
    std::string path = *g_dir + "/.amdahl-spill-XXXXXX";
    fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(path.c_str());
  }
  return fd;
}

int spill_fd() noexcept {
  int fd = g_fd.load(std::memory_order_acquire);
  if (fd >= 0) return fd;
  const int mine = open_spill_file();
  if (mine < 0) return -1;
  int expected = -1;
  if (g_fd.compare_exchange_strong(expected, mine, std::memory_order_acq_rel)) return mine;
  ::close(mine);  // another thread opened it first
  return expected;
}

void warn_once(const char* what) noexcept {
  if (!g_warned.exchange(true)) {
    log_message(LogLevel::Warn, "cannot spill records to %s (%s): records past the memory budget are dropped "
                "(counted in collector.dropped_ranges)", g_dir->c_str(), what);
  }
}

}  // namespace

void spill_configure(const char* part_dir, bool enabled) noexcept {
  try {
    g_dir = new std::string(part_dir != nullptr ? part_dir : "");
    g_enabled = enabled && part_dir != nullptr && *part_dir != '\0';
  } catch (...) {
    g_enabled = false;
  }
}

bool spill_enabled() noexcept { return g_enabled; }

std::size_t spill_rounded(std::size_t bytes) noexcept {
  const std::size_t p = page_size();
  return (bytes + p - 1) / p * p;
}

void* spill_map(std::size_t bytes) noexcept {
  if (!g_enabled) return nullptr;
  const int fd = spill_fd();
  if (fd < 0) {
    warn_once("cannot create the spill file");
    return nullptr;
  }
  const std::size_t size = spill_rounded(bytes);
  const std::uint64_t off = g_offset.fetch_add(size, std::memory_order_relaxed);
  // Reserve the blocks: writes through the mapping can then not fail (no SIGBUS on a full disk).
  if (::posix_fallocate(fd, static_cast<off_t>(off), static_cast<off_t>(size)) != 0) {
    warn_once("no space");
    return nullptr;
  }
  void* mem = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, static_cast<off_t>(off));
  if (mem == MAP_FAILED) {
    warn_once("mmap failed");
    return nullptr;
  }
  return mem;
}

std::uint64_t spill_bytes() noexcept { return g_offset.load(std::memory_order_relaxed); }

void spill_evict(void* addr, std::size_t bytes) noexcept {
  if (addr != nullptr) ::madvise(addr, spill_rounded(bytes), MADV_DONTNEED);
}

void spill_evict_pages(void* begin, void* end) noexcept {
  const std::uintptr_t page = page_size();
  const std::uintptr_t b = (reinterpret_cast<std::uintptr_t>(begin) + page - 1) & ~(page - 1);
  const std::uintptr_t e = reinterpret_cast<std::uintptr_t>(end) & ~(page - 1);
  if (e > b) ::madvise(reinterpret_cast<void*>(b), e - b, MADV_DONTNEED);
}

void spill_after_fork_child() noexcept {
  const int fd = g_fd.exchange(-1);
  if (fd >= 0) ::close(fd);
  g_offset.store(0);
}

}  // namespace amdahl::profiler::detail
