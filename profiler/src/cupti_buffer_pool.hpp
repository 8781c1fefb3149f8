// A small pool of fixed-size, 8-byte aligned activity buffers handed to CUPTI and returned after
// their records were converted. Grows up to a limit; past it, take() returns nullptr and CUPTI
// drops records (counted by the collector). Thread-safe. No CUPTI dependency (unit-tested).
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace amdahl::profiler::cupti {

class BufferPool {
 public:
  // `buffer_bytes` is rounded up to a multiple of 8; `max_buffers` caps the pool's total count.
  BufferPool(std::size_t buffer_bytes, std::size_t max_buffers) noexcept;
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A free buffer (allocating a new one while under the cap), or nullptr when exhausted or out
  // of memory.
  std::uint8_t* take() noexcept;
  // Returns a buffer obtained from take(). Unknown pointers are ignored (and counted).
  void give_back(std::uint8_t* buffer) noexcept;

  std::size_t buffer_bytes() const noexcept { return buffer_bytes_; }
  std::size_t allocated() const noexcept;   // buffers ever allocated (<= max_buffers)
  std::size_t in_use() const noexcept;      // buffers taken and not given back
  std::size_t exhausted() const noexcept;   // take() calls that returned nullptr
  std::size_t foreign() const noexcept;     // give_back() calls with an unknown pointer

 private:
  std::size_t buffer_bytes_;
  std::size_t max_buffers_;
  mutable std::mutex mu_;
  std::vector<std::uint8_t*> all_;
  std::vector<std::uint8_t*> free_;
  std::size_t exhausted_ = 0;
  std::size_t foreign_ = 0;
};

}  // namespace amdahl::profiler::cupti
