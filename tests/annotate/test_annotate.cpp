// The C++ annotation API (include/amdahl/annotate/): the ordered queue's hand-off order and
// blocking, without an NVTX tool attached (every range and mark a no-op), and the forwarding
// headers at the old path (include/amdahl/workloads/, kept for one release) naming the same API.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <type_traits>

#include "amdahl/annotate/ordered_queue.hpp"
#include "amdahl/annotate/stages.hpp"
#include "amdahl/workloads/ordered_queue.hpp"
#include "amdahl/workloads/stages.hpp"

namespace an = amdahl::annotate;

TEST_CASE("the ordered queue hands items over in index order whatever order they were put in") {
  an::OrderedQueue<int> q(3);
  CHECK_FALSE(q.put(2, 20));
  CHECK_FALSE(q.put(0, 0));
  CHECK_FALSE(q.put(1, 10));
  for (int k = 0; k < 3; ++k) {
    const auto t = q.take();
    CHECK(t.index == k);
    CHECK(t.item == 10 * k);
    CHECK_FALSE(t.blocked);
  }
  CHECK_THROWS_AS(an::OrderedQueue<int>(0), std::invalid_argument);
}

TEST_CASE("a put beyond the capacity blocks until the item it would overwrite was taken") {
  an::OrderedQueue<int> q(1);
  CHECK_FALSE(q.put(0, 7));
  std::atomic<bool> put_done{false};
  bool put_blocked = false;
  std::thread producer([&] {
    put_blocked = q.put(1, 8);
    put_done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(put_done.load());  // item 0 still holds the only slot
  const auto first = q.take();
  producer.join();
  CHECK(put_blocked);
  const auto second = q.take();
  CHECK(first.item == 7);
  CHECK(second.index == 1);
  CHECK(second.item == 8);
}

TEST_CASE("the old include path and namespace name the same API (one release)") {
  static_assert(std::is_same_v<amdahl::workloads::Range, an::Range>);
  static_assert(std::is_same_v<amdahl::workloads::OrderedQueue<int>, an::OrderedQueue<int>>);
  CHECK(std::string_view(amdahl::workloads::stage_name(amdahl::workloads::Stage::h2d)) == "h2d");
  CHECK(std::string_view(an::stage_name(an::Stage::cpu_preprocess)) == "cpu_preprocess");
  an::Range r = an::step_range();  // no tool attached: a no-op that must not crash
  an::produce(1);
  an::consume(1);
}
