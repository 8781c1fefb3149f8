// The activity buffer pool (see cupti_buffer_pool.hpp).
#include "cupti_buffer_pool.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>

namespace amdahl::profiler::cupti {

BufferPool::BufferPool(std::size_t buffer_bytes, std::size_t max_buffers) noexcept
    : buffer_bytes_(((buffer_bytes < 1024 ? 1024 : buffer_bytes) + 7) / 8 * 8),
      max_buffers_(max_buffers == 0 ? 1 : max_buffers) {}

BufferPool::~BufferPool() {
  for (auto* b : all_) std::free(b);
}

std::uint8_t* BufferPool::take() noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  if (!free_.empty()) {
    auto* b = free_.back();
    free_.pop_back();
    return b;
  }
  if (all_.size() >= max_buffers_) {
    ++exhausted_;
    return nullptr;
  }
  void* p = std::aligned_alloc(8, buffer_bytes_);
  if (p == nullptr) {
    ++exhausted_;
    return nullptr;
  }
  try {
    all_.push_back(static_cast<std::uint8_t*>(p));
    free_.reserve(all_.size());  // give_back never allocates
  } catch (...) {
    if (!all_.empty() && all_.back() == p) all_.pop_back();
    std::free(p);
    ++exhausted_;
    return nullptr;
  }
  return static_cast<std::uint8_t*>(p);
}

void BufferPool::give_back(std::uint8_t* buffer) noexcept {
  if (buffer == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  const bool ours = std::find(all_.begin(), all_.end(), buffer) != all_.end();
  const bool already_free = std::find(free_.begin(), free_.end(), buffer) != free_.end();
  if (!ours || already_free) {
    ++foreign_;
    return;
  }
  free_.push_back(buffer);
}

std::size_t BufferPool::allocated() const noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  return all_.size();
}
std::size_t BufferPool::in_use() const noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  return all_.size() - free_.size();
}
std::size_t BufferPool::exhausted() const noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  return exhausted_;
}
std::size_t BufferPool::foreign() const noexcept {
  std::lock_guard<std::mutex> lock(mu_);
  return foreign_;
}

}  // namespace amdahl::profiler::cupti
