// A single-writer, many-reader append-only record buffer: the owning thread appends without a
// lock; any thread may read the published prefix (and look a record up by index) concurrently.
// Storage is a two-level directory of fixed-size chunks, so records never move.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

namespace amdahl::profiler::detail {

// Counts bytes of record storage across all buffers of the process (for the memory budget).
std::atomic<std::int64_t>& buffer_bytes_in_use() noexcept;
// The budget in bytes (AMDAHL_MEMORY_BUDGET_MB; read once at start).
std::int64_t buffer_bytes_budget() noexcept;

template <class T>
class ChunkedBuffer {
 public:
  static constexpr std::size_t kChunkBits = 9;  // 512 records a chunk
  static constexpr std::size_t kDirBits = 10;   // 1024 chunks a directory
  static constexpr std::size_t kTopSize = 1024;
  static constexpr std::size_t kChunk = std::size_t{1} << kChunkBits;
  static constexpr std::size_t kDir = std::size_t{1} << kDirBits;
  static constexpr std::uint64_t kCapacity = std::uint64_t{kTopSize} * kDir * kChunk;

  ChunkedBuffer() = default;
  ChunkedBuffer(const ChunkedBuffer&) = delete;
  ChunkedBuffer& operator=(const ChunkedBuffer&) = delete;
  ~ChunkedBuffer() { release(); }

  // Owner thread only. Returns a slot to fill and then publish(), or nullptr when the buffer is
  // full or the memory budget is spent (the caller counts the drop).
  T* reserve() noexcept {
    const std::uint64_t i = size_;
    if (i >= kCapacity) return nullptr;
    const std::size_t top = static_cast<std::size_t>(i >> (kChunkBits + kDirBits));
    const std::size_t mid = static_cast<std::size_t>((i >> kChunkBits) & (kDir - 1));
    const std::size_t low = static_cast<std::size_t>(i & (kChunk - 1));
    std::atomic<T*>* dir = top_[top].load(std::memory_order_relaxed);
    if (dir == nullptr) {
      dir = new (std::nothrow) std::atomic<T*>[kDir];
      if (dir == nullptr) return nullptr;
      for (std::size_t k = 0; k < kDir; ++k) dir[k].store(nullptr, std::memory_order_relaxed);
      top_[top].store(dir, std::memory_order_release);
    }
    T* chunk = dir[mid].load(std::memory_order_relaxed);
    if (chunk == nullptr) {
      auto& used = buffer_bytes_in_use();
      const auto bytes = static_cast<std::int64_t>(sizeof(T) * kChunk);
      if (used.load(std::memory_order_relaxed) + bytes > buffer_bytes_budget()) return nullptr;
      chunk = new (std::nothrow) T[kChunk];
      if (chunk == nullptr) return nullptr;
      used.fetch_add(bytes, std::memory_order_relaxed);
      dir[mid].store(chunk, std::memory_order_release);
    }
    return &chunk[low];
  }

  // Owner thread only: makes the slot returned by the last reserve() visible to readers.
  std::uint64_t publish() noexcept {
    const std::uint64_t i = size_++;
    published_.store(size_, std::memory_order_release);
    return i;
  }

  // Number of records readers may look at.
  std::uint64_t published() const noexcept { return published_.load(std::memory_order_acquire); }

  // Any thread: the record at `i` (must be < a value published() returned), else nullptr.
  T* at(std::uint64_t i) const noexcept {
    if (i >= published()) return nullptr;
    const std::size_t top = static_cast<std::size_t>(i >> (kChunkBits + kDirBits));
    const std::size_t mid = static_cast<std::size_t>((i >> kChunkBits) & (kDir - 1));
    std::atomic<T*>* dir = top_[top].load(std::memory_order_acquire);
    if (dir == nullptr) return nullptr;
    T* chunk = dir[mid].load(std::memory_order_acquire);
    return chunk == nullptr ? nullptr : &chunk[i & (kChunk - 1)];
  }

  // Frees all storage (only when no other thread can touch the buffer: the child after fork).
  void release() noexcept {
    for (auto& slot : top_) {
      std::atomic<T*>* dir = slot.load(std::memory_order_relaxed);
      if (dir == nullptr) continue;
      for (std::size_t k = 0; k < kDir; ++k) {
        T* chunk = dir[k].load(std::memory_order_relaxed);
        if (chunk == nullptr) continue;
        delete[] chunk;
        buffer_bytes_in_use().fetch_sub(static_cast<std::int64_t>(sizeof(T) * kChunk),
                                        std::memory_order_relaxed);
      }
      delete[] dir;
      slot.store(nullptr, std::memory_order_relaxed);
    }
    size_ = 0;
    published_.store(0, std::memory_order_relaxed);
  }

 private:
  std::atomic<std::atomic<T*>*> top_[kTopSize] = {};
  std::uint64_t size_ = 0;  // owner's view
  std::atomic<std::uint64_t> published_{0};
};

}  // namespace amdahl::profiler::detail
