// A bounded, index-ordered hand-off queue between loader threads and the thread that drives
// training, instrumented for amdahl: every put and take is wrapped in a `wait` range (near zero
// long when it does not block) and emits the `produce` / `consume` mark of its item index.
// Items are delivered in index order 0, 1, 2, ... whatever order the producers finish in, and
// put(n) blocks until item n - capacity has been taken: the replay's queue model (docs/architecture.md)
// ("a producer's wait before producing item n ends no earlier than the consume of n - c").
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "amdahl/annotate/stages.hpp"

namespace amdahl::annotate {

template <typename T>
class OrderedQueue {
 public:
  // `mark_base` is added to the item index in the produce/consume marks (item ids must be
  // unique in a profile: ranks of a data-parallel run each have their own queue).
  explicit OrderedQueue(std::int64_t capacity, std::int64_t mark_base = 0) : mark_base_(mark_base) {
    if (capacity < 1) throw std::invalid_argument("OrderedQueue capacity must be at least 1");
    slots_.resize(static_cast<std::size_t>(capacity));
  }

  std::int64_t capacity() const noexcept { return static_cast<std::int64_t>(slots_.size()); }

  struct Taken {
    std::int64_t index;
    T item;
    bool blocked;  // the take had to wait for the item
  };

  // Hands over item `index` (each index exactly once, from 0 up, any producer thread). Blocks
  // while item index - capacity has not been taken yet. Returns whether it had to block.
  bool put(std::int64_t index, T item) {
    std::unique_lock lock(mutex_);
    bool blocked = false;
    {
      Range waiting = wait_range();
      while (!(index < next_take_ + capacity())) {
        blocked = true;
        not_full_.wait(lock);
      }
    }
    produce(mark_base_ + index);  // under the lock: strictly before the consumer can take it
    slots_[slot(index)] = std::move(item);
    lock.unlock();
    not_empty_.notify_all();
    return blocked;
  }

  // Takes the next item in index order, blocking until it has been put.
  Taken take() {
    std::unique_lock lock(mutex_);
    bool blocked = false;
    {
      Range waiting = wait_range();
      while (!slots_[slot(next_take_)].has_value()) {
        blocked = true;
        not_empty_.wait(lock);
      }
    }
    const std::int64_t index = next_take_++;
    T item = std::move(*slots_[slot(index)]);
    slots_[slot(index)].reset();
    consume(mark_base_ + index);  // under the lock: strictly before a producer blocked on it can go on
    lock.unlock();
    not_full_.notify_all();
    return {index, std::move(item), blocked};
  }

 private:
  std::size_t slot(std::int64_t index) const noexcept {
    return static_cast<std::size_t>(index % capacity());
  }

  std::mutex mutex_;
  std::condition_variable not_full_;
  std::condition_variable not_empty_;
  std::vector<std::optional<T>> slots_;
  std::int64_t next_take_ = 0;
  std::int64_t mark_base_ = 0;
};

}  // namespace amdahl::annotate
