// A bounded, blocking, closable FIFO queue between loader threads and the training thread.
// Items get consecutive ids (0, 1, 2, ...) in the order they are put, so the produce/consume
// marks a consumer and producers report name the same item and come in queue order.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>

#include "amdahl/segmentation/pipeline_observer.hpp"

namespace amdahl::segmentation {

template <class T>
class BoundedQueue {
 public:
  struct Item {
    std::int64_t id;
    T value;
  };

  explicit BoundedQueue(std::size_t capacity) : capacity_(capacity) {
    if (capacity == 0) throw std::invalid_argument("queue capacity must be at least 1");
  }

  // Blocks while the queue is full. Returns the item's id, or nullopt when the queue was closed
  // (the item is then dropped). The observer sees wait_begin/end only when the put blocks.
  std::optional<std::int64_t> put(T value, PipelineObserver* observer = nullptr) {
    std::unique_lock lock(mutex_);
    if (items_.size() >= capacity_ && !closed_) {
      if (observer) observer->wait_begin();
      not_full_.wait(lock, [&] { return items_.size() < capacity_ || closed_; });
      if (observer) observer->wait_end();
    }
    if (closed_) return std::nullopt;
    const std::int64_t id = next_id_++;
    items_.push_back(Item{id, std::move(value)});
    if (observer) observer->produced(id);
    lock.unlock();
    not_empty_.notify_one();
    return id;
  }

  // Blocks while the queue is empty and open. Returns nullopt once closed and drained.
  std::optional<Item> take(PipelineObserver* observer = nullptr) {
    std::unique_lock lock(mutex_);
    if (items_.empty() && !closed_) {
      if (observer) observer->wait_begin();
      not_empty_.wait(lock, [&] { return !items_.empty() || closed_; });
      if (observer) observer->wait_end();
    }
    if (items_.empty()) return std::nullopt;
    Item item = std::move(items_.front());
    items_.pop_front();
    if (observer) observer->consumed(item.id);
    lock.unlock();
    not_full_.notify_one();
    return item;
  }

  // Wakes every blocked caller; later puts fail, takes drain what is left.
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    not_full_.notify_all();
    not_empty_.notify_all();
  }

  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return items_.size();
  }
  std::size_t capacity() const { return capacity_; }

 private:
  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::deque<Item> items_;
  std::int64_t next_id_ = 0;
  bool closed_ = false;
};

}  // namespace amdahl::segmentation
