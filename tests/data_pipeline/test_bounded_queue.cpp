// Bounded queue: FIFO order with consecutive ids, backpressure on a full queue (with wait
// hooks), close semantics, and marks that pair each produce with its consume.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "amdahl/segmentation/bounded_queue.hpp"

using namespace amdahl::segmentation;
using namespace std::chrono_literals;

namespace {
struct Recorder : PipelineObserver {
  std::mutex m;
  std::vector<std::int64_t> produced_ids, consumed_ids;
  std::atomic<int> waits_begun{0}, waits_ended{0};
  void wait_begin() override { ++waits_begun; }
  void wait_end() override { ++waits_ended; }
  void produced(std::int64_t id) override {
    std::lock_guard l(m);
    produced_ids.push_back(id);
  }
  void consumed(std::int64_t id) override {
    std::lock_guard l(m);
    consumed_ids.push_back(id);
  }
};
}  // namespace

TEST_CASE("queue is FIFO and numbers items in put order") {
  BoundedQueue<int> q(4);
  Recorder rec;
  for (int v : {10, 20, 30}) CHECK(q.put(v, &rec).has_value());
  CHECK(q.size() == 3);
  for (int i = 0; i < 3; ++i) {
    auto item = q.take(&rec);
    REQUIRE(item);
    CHECK(item->id == i);
    CHECK(item->value == (i + 1) * 10);
  }
  CHECK(rec.produced_ids == std::vector<std::int64_t>{0, 1, 2});
  CHECK(rec.consumed_ids == std::vector<std::int64_t>{0, 1, 2});
  CHECK(rec.waits_begun == 0);  // nothing blocked
  CHECK_THROWS_AS(BoundedQueue<int>(0), std::invalid_argument);
}

TEST_CASE("a full queue blocks the producer until the consumer takes") {
  BoundedQueue<int> q(2);
  Recorder rec;
  q.put(1, &rec);
  q.put(2, &rec);
  std::atomic<bool> third_done{false};
  std::thread producer([&] {
    q.put(3, &rec);
    third_done = true;
  });
  std::this_thread::sleep_for(100ms);
  CHECK_FALSE(third_done.load());
  CHECK(q.size() == 2);
  auto first = q.take(&rec);
  producer.join();
  CHECK(third_done.load());
  CHECK(first->value == 1);
  CHECK(rec.waits_begun == 1);
  CHECK(rec.waits_ended == 1);
  CHECK(q.take()->value == 2);
  CHECK(q.take()->value == 3);
}

TEST_CASE("an empty queue blocks the consumer; close wakes everyone") {
  BoundedQueue<int> q(1);
  Recorder rec;
  std::thread consumer([&] {
    auto item = q.take(&rec);
    CHECK(item);
    CHECK(item->value == 5);
    CHECK_FALSE(q.take(&rec).has_value());  // closed and drained
  });
  std::this_thread::sleep_for(50ms);
  q.put(5, &rec);
  std::this_thread::sleep_for(50ms);
  q.close();
  consumer.join();
  CHECK(rec.waits_begun == 2);
  CHECK_FALSE(q.put(6).has_value());
}

TEST_CASE("many producers: every id delivered once, in order, never over capacity") {
  BoundedQueue<int> q(3);
  Recorder rec;
  constexpr int kPerProducer = 200;
  std::vector<std::thread> producers;
  for (int p = 0; p < 4; ++p)
    producers.emplace_back([&, p] {
      for (int i = 0; i < kPerProducer; ++i) q.put(p * 1000 + i, &rec);
    });
  std::vector<int> last(4, -1);
  for (int n = 0; n < 4 * kPerProducer; ++n) {
    REQUIRE(q.size() <= 3);
    auto item = q.take(&rec);
    REQUIRE(item);
    REQUIRE(item->id == n);
    const int p = item->value / 1000;
    REQUIRE(item->value % 1000 > last[p]);  // each producer's items stay in its order
    last[p] = item->value % 1000;
  }
  for (auto& t : producers) t.join();
  CHECK(rec.produced_ids.size() == 4 * kPerProducer);
  for (std::size_t i = 0; i < rec.produced_ids.size(); ++i)
    REQUIRE(rec.produced_ids[i] == static_cast<std::int64_t>(i));
}
