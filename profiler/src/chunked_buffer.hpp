// A single-writer, many-reader append-only record buffer: the owning thread appends without a
// lock; any thread may read the published prefix (and look a record up by index) concurrently.
// Storage is a list of chunks of doubling size (512, 1024, 2048 ... records), so records never
// move, a thread that records little costs little, and a busy thread takes few page faults
// (large chunks are mmap'ed and marked for transparent huge pages). Past the memory budget a
// chunk comes from the spill file (spill_file.hpp) when spilling is on: such a chunk is not
// counted against the budget, and its pages can be handed back to the kernel (evict_spilled).
//
// Look-ahead: the first write to a fresh page costs the recording thread a page fault (~2 us
// for 4 KiB, ~30 ns a record, on a fresh VM: most of a push/pop pair's cost). So the owner, every
// half look-ahead, maps the chunks of the next records (an mmap, no touch) and asks the
// prefaulter thread (prefaulter.cpp) to fault their pages in (MADV_POPULATE_WRITE, which leaves
// the contents alone), so that the hot path finds its pages present. The look-ahead is as large
// as what the buffer holds already, 64 KiB to 4 MiB: memory stays within ~2x what is recorded.
// It starts near the first mapped chunk (kAheadStart): before it, nothing changes.
#pragma once

#include <sys/mman.h>

#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>

#include "spill_file.hpp"

namespace amdahl::profiler::detail {

// Counts bytes of record storage across all buffers of the process (for the memory budget).
std::atomic<std::int64_t>& buffer_bytes_in_use() noexcept;
// The budget in bytes (AMDAHL_MEMORY_BUDGET_MB; read once at start).
std::int64_t buffer_bytes_budget() noexcept;
// Whether the look-ahead is on (AMDAHL_PREFAULT, default on, where MADV_POPULATE_WRITE works).
bool prefault_enabled() noexcept;
// Wakes the prefaulter thread (prefaulter.cpp); no system call when it is busy already.
void prefault_kick() noexcept;
// Faults in [addr, addr + bytes) for writing without changing what is there (rounded out to
// whole pages); turns the look-ahead off for the process where the kernel lacks it.
void prefault_range(void* addr, std::size_t bytes) noexcept;

template <class T>
class ChunkedBuffer {
  static_assert(std::is_trivially_destructible_v<T>, "mapped chunks are unmapped without destroying records");

 public:
  static constexpr unsigned kBaseBits = 9;  // the first chunk holds 512 records
  static constexpr std::uint64_t kBase = std::uint64_t{1} << kBaseBits;
  static constexpr unsigned kMaxChunks = 26;  // capacity kBase * (2^26 - 1) ~ 3.4e10 records
  static constexpr std::uint64_t kCapacity = kBase * ((std::uint64_t{1} << kMaxChunks) - 1);
  static constexpr std::size_t kMmapThreshold = std::size_t{256} << 10;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::uint64_t kAheadMinBytes = std::uint64_t{64} << 10;
  static constexpr std::uint64_t kAheadMaxBytes = std::uint64_t{4} << 20;
  // Spilled chunks: the owner hands back the pages of each run of this many records it wrote.
  static constexpr std::uint64_t kEvictRecords = (std::uint64_t{8} << 20) / sizeof(T);
  // The first record of the first mapped chunk (the heap chunks before it are touched when
  // made), and where the look-ahead starts: half a minimal look-ahead before it. A buffer that
  // never gets near it (a thread, or a forked child, that records little) works as it did
  // without the look-ahead: no early chunk, no prefaulter thread.
  static constexpr std::uint64_t first_mapped_record() noexcept {
    unsigned k = 0;
    while (sizeof(T) * (kBase << k) < kMmapThreshold) ++k;
    return kBase * ((std::uint64_t{1} << k) - 1);
  }
  static constexpr std::uint64_t kAheadStart =
      first_mapped_record() > kAheadMinBytes / sizeof(T) / 2 ? first_mapped_record() - kAheadMinBytes / sizeof(T) / 2 : 0;

  ChunkedBuffer() = default;
  ChunkedBuffer(const ChunkedBuffer&) = delete;
  ChunkedBuffer& operator=(const ChunkedBuffer&) = delete;
  ~ChunkedBuffer() { release(); }

  // Owner thread only. Returns a slot to fill and then publish(), or nullptr when the buffer is
  // full or the memory budget is spent (the caller counts the drop). The hot path is one
  // compare: the owner's cursor runs through the current chunk up to the next look-ahead mark.
  T* reserve() noexcept {
    if (cur_ != lim_) [[likely]] return cur_;
    return reserve_slow();
  }

  // Owner thread only: makes the slot returned by the last reserve() visible to readers.
  std::uint64_t publish() noexcept {
    const std::uint64_t i = size_++;
    ++cur_;
    published_.store(size_, std::memory_order_release);
    return i;
  }

  // Number of records readers may look at.
  std::uint64_t published() const noexcept { return published_.load(std::memory_order_acquire); }

  // Any thread: the record at `i` if it was published, else nullptr.
  T* at(std::uint64_t i) const noexcept {
    if (i >= published()) return nullptr;
    unsigned k = 0;
    std::uint64_t off = 0;
    locate(i, k, off);
    T* chunk = chunks_[k].load(std::memory_order_acquire);
    return chunk == nullptr ? nullptr : &chunk[off];
  }

  // Element i and how many follow it in the same chunk, up to published() (n = 0 and nullptr
  // where there is none): a reader walks the records a chunk at a time, without a lookup each.
  T* run_at(std::uint64_t i, std::uint64_t& n) const noexcept {
    n = 0;
    const std::uint64_t end = published();
    if (i >= end) return nullptr;
    unsigned k = 0;
    std::uint64_t off = 0;
    locate(i, k, off);
    T* chunk = chunks_[k].load(std::memory_order_acquire);
    if (chunk == nullptr) return nullptr;
    const std::uint64_t chunk_end = chunk_first(k + 1);
    n = (end < chunk_end ? end : chunk_end) - i;
    return &chunk[off];
  }

  // The prefaulter thread only (one per process): faults in the pages of the records the owner
  // asked for in look_ahead that it has not written yet.
  void prefault() noexcept {
    const std::uint64_t want = ahead_want_.load(std::memory_order_acquire);
    std::uint64_t from = prefaulted_ > published() ? prefaulted_ : published();
    while (from < want) {
      unsigned k = 0;
      std::uint64_t off = 0;
      locate(from, k, off);
      T* chunk = chunks_[k].load(std::memory_order_acquire);
      if (chunk == nullptr) break;
      const std::uint64_t chunk_end = chunk_first(k + 1);
      const std::uint64_t to = want < chunk_end ? want : chunk_end;
      // Heap chunks are touched when made; spilled ones are file pages, evicted as they fill.
      if (!spilled_[k] && chunk_bytes(k) >= kMmapThreshold) {
        prefault_range(&chunk[off], static_cast<std::size_t>((to - from) * sizeof(T)));
      }
      from = to;
    }
    prefaulted_ = from;
  }

  // Records among the first `n` that lie in spilled chunks.
  std::uint64_t spilled_records(std::uint64_t n) const noexcept {
    std::uint64_t count = 0;
    for (unsigned k = 0; k < kMaxChunks; ++k) {
      const std::uint64_t first = chunk_first(k);
      if (first >= n) break;
      if (chunks_[k].load(std::memory_order_acquire) == nullptr || !spilled_[k]) continue;
      const std::uint64_t end = first + (kBase << k);
      count += (end < n ? end : n) - first;
    }
    return count;
  }

  // Any thread: hands the pages of the spilled chunks back to the kernel (the data stays in the
  // spill file; a later access reads it back in).
  void evict_spilled() const noexcept {
    for (unsigned k = 0; k < kMaxChunks; ++k) {
      T* chunk = chunks_[k].load(std::memory_order_acquire);
      if (chunk != nullptr && spilled_[k]) spill_evict(chunk, chunk_bytes(k));
    }
  }

  // Frees all storage (only when no other thread can touch the buffer: the child after fork).
  void release() noexcept {
    for (unsigned k = 0; k < kMaxChunks; ++k) {
      T* chunk = chunks_[k].exchange(nullptr, std::memory_order_relaxed);
      if (chunk == nullptr) continue;
      const std::size_t bytes = chunk_bytes(k);
      if (spilled_[k]) {
        ::munmap(chunk, spill_rounded(bytes));
        spilled_[k] = false;
        continue;
      }
      if (bytes >= kMmapThreshold) {
        ::munmap(chunk, bytes);  // records used as mapped (allocate_chunk): nothing to destroy
      } else {
        for (std::uint64_t j = 0; j < (kBase << k); ++j) chunk[j].~T();
        ::operator delete(chunk, std::align_val_t{alignof(T)});
      }
      buffer_bytes_in_use().fetch_sub(static_cast<std::int64_t>(bytes), std::memory_order_relaxed);
    }
    size_ = 0;
    cur_ = lim_ = nullptr;
    published_.store(0, std::memory_order_relaxed);
    ahead_mark_ = kAheadStart;
    ahead_want_.store(0, std::memory_order_relaxed);
    prefaulted_ = 0;
  }

 private:
  // Owner thread, every half look-ahead: maps the chunks up to the end of the next look-ahead
  // (their pages untouched) and asks the prefaulter for them. Off: never called again.
  __attribute__((noinline)) void look_ahead(std::uint64_t i) noexcept {
    if (!prefault_enabled() || i >= kCapacity) {
      ahead_mark_ = kCapacity;
      return;
    }
    std::uint64_t bytes = i * sizeof(T);
    bytes = bytes < kAheadMinBytes ? kAheadMinBytes : (bytes > kAheadMaxBytes ? kAheadMaxBytes : bytes);
    const std::uint64_t n = bytes / sizeof(T);
    const std::uint64_t end = kCapacity - i < n ? kCapacity : i + n;
    unsigned k_first = 0, k_last = 0;
    std::uint64_t off = 0;
    locate(i, k_first, off);
    locate(end - 1, k_last, off);
    std::uint64_t mapped_end = end;
    for (unsigned k = k_first; k <= k_last; ++k) {
      if (chunks_[k].load(std::memory_order_relaxed) != nullptr) continue;
      T* chunk = allocate_chunk(k, spilled_[k]);
      if (chunk == nullptr) {  // budget spent, spilling off: reserve() drops from here on
        mapped_end = chunk_first(k);
        break;
      }
      chunks_[k].store(chunk, std::memory_order_release);
    }
    ahead_mark_ = i + n / 2;
    if (mapped_end > i) {
      ahead_want_.store(mapped_end, std::memory_order_release);
      prefault_kick();
    }
  }


  // The slow path of reserve(): the look-ahead when due, the chunk of record size_ (made when
  // missing), and the cursor's next run: to the end of that chunk or the next look-ahead mark.
  __attribute__((noinline)) T* reserve_slow() noexcept {
    cur_ = lim_ = nullptr;
    const std::uint64_t i = size_;
    if (i >= ahead_mark_) look_ahead(i);
    if (i >= kCapacity) return nullptr;
    unsigned k = 0;
    std::uint64_t off = 0;
    locate(i, k, off);
    T* chunk = chunks_[k].load(std::memory_order_relaxed);
    if (chunk == nullptr) {
      chunk = allocate_chunk(k, spilled_[k]);
      if (chunk == nullptr) return nullptr;
      chunks_[k].store(chunk, std::memory_order_release);
    }
    std::uint64_t stop = chunk_first(k + 1);
    if (ahead_mark_ < stop) stop = ahead_mark_;  // > i: look_ahead moved it past i
    if (spilled_[k]) {
      // Every kEvictRecords of a spilled chunk, the pages of the run just written go back to the
      // kernel (they are in the spill file): memory stays near the budget however fast the
      // owner writes, not only at the flusher's passes.
      if (off >= kEvictRecords && off % kEvictRecords == 0) {
        spill_evict_pages(&chunk[off - kEvictRecords], &chunk[off]);
      } else if (off == 0 && k > 0 && spilled_[k - 1]) {  // the previous chunk's last run
        T* prev = chunks_[k - 1].load(std::memory_order_relaxed);
        if (prev != nullptr) spill_evict(prev, chunk_bytes(k - 1));
      }
      const std::uint64_t next = chunk_first(k) + (off / kEvictRecords + 1) * kEvictRecords;
      if (next < stop) stop = next;
    }
    cur_ = &chunk[off];
    lim_ = cur_ + (stop - i);
    return cur_;
  }

  // The index of the first record of chunk k.
  static constexpr std::uint64_t chunk_first(unsigned k) noexcept { return kBase * ((std::uint64_t{1} << k) - 1); }

  static void locate(std::uint64_t i, unsigned& k, std::uint64_t& off) noexcept {
    const std::uint64_t n = (i >> kBaseBits) + 1;
    k = static_cast<unsigned>(std::bit_width(n) - 1);
    off = i - chunk_first(k);
  }

  static std::size_t chunk_bytes(unsigned k) noexcept {
    return static_cast<std::size_t>(sizeof(T) * (kBase << k));
  }

  // The chunk's storage: memory within the budget, else (spilling on) a region of the spill
  // file. Mapped storage (large chunks, spilled chunks) starts zeroed and its records are used as
  // they are: every record type here is valid all-zero and its recording function sets every
  // field that is read back.
  static T* allocate_chunk(unsigned k, bool& spilled) noexcept {
    const std::size_t bytes = chunk_bytes(k);
    auto& used = buffer_bytes_in_use();
    if (used.load(std::memory_order_relaxed) + static_cast<std::int64_t>(bytes) >
        buffer_bytes_budget()) {
      void* mem = spill_map(bytes);
      if (mem == nullptr) return nullptr;
      spilled = true;
      return static_cast<T*>(mem);
    }
    void* mem = nullptr;
    if (bytes >= kMmapThreshold) {
      mem = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (mem == MAP_FAILED) return nullptr;
#ifdef MADV_HUGEPAGE
      if (bytes >= kHugePage) ::madvise(mem, bytes, MADV_HUGEPAGE);
#endif
    } else {
      mem = ::operator new(bytes, std::align_val_t{alignof(T)}, std::nothrow);
      if (mem == nullptr) return nullptr;
    }
    used.fetch_add(static_cast<std::int64_t>(bytes), std::memory_order_relaxed);
    T* chunk = static_cast<T*>(mem);
    // A mapped chunk is zero-filled already: its pages are touched only as records fill them (no
    // burst of page faults on the recording thread, and memory grows with what is recorded).
    if (bytes < kMmapThreshold) {
      for (std::uint64_t j = 0; j < (kBase << k); ++j) new (&chunk[j]) T();
    }
    return chunk;
  }

  std::atomic<T*> chunks_[kMaxChunks] = {};
  bool spilled_[kMaxChunks] = {};  // written before the chunk is published (release)
  T* cur_ = nullptr;  // owner: the slot of record size_ (when cur_ != lim_)
  T* lim_ = nullptr;  // owner: the end of the run of slots reserve() hands out without a look
  std::uint64_t size_ = 0;  // owner's view
  std::atomic<std::uint64_t> published_{0};
  std::uint64_t ahead_mark_ = kAheadStart;      // owner: the next look_ahead is at this record
  std::atomic<std::uint64_t> ahead_want_{0};    // owner -> prefaulter: fault in records below this
  std::uint64_t prefaulted_ = 0;                // prefaulter thread only: done below this
};

}  // namespace amdahl::profiler::detail
