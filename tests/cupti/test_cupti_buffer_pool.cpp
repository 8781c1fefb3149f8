// Unit tests of the CUPTI activity buffer pool (the log level parse: tests/profiler/test_collector_config.cpp).
#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <thread>
#include <vector>

#include "cupti_buffer_pool.hpp"

using amdahl::profiler::cupti::BufferPool;

TEST_CASE("buffers are 8-byte aligned, of the rounded size, reused, and capped") {
  BufferPool pool(4097, 3);
  CHECK(pool.buffer_bytes() == 4104);
  std::uint8_t* a = pool.take();
  std::uint8_t* b = pool.take();
  std::uint8_t* c = pool.take();
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(c);
  for (auto* p : {a, b, c}) CHECK(reinterpret_cast<std::uintptr_t>(p) % 8 == 0);
  CHECK(std::set<std::uint8_t*>{a, b, c}.size() == 3);
  CHECK(pool.allocated() == 3);
  CHECK(pool.in_use() == 3);
  CHECK(pool.take() == nullptr);
  CHECK(pool.exhausted() == 1);
  pool.give_back(b);
  CHECK(pool.in_use() == 2);
  CHECK(pool.take() == b);  // reused, not reallocated
  CHECK(pool.allocated() == 3);
  for (auto* p : {a, b, c}) pool.give_back(p);
  CHECK(pool.in_use() == 0);
}

TEST_CASE("unknown and doubly returned buffers are ignored and counted") {
  BufferPool pool(1024, 2);
  std::uint8_t local[16];
  pool.give_back(local);
  std::uint8_t* a = pool.take();
  pool.give_back(a);
  pool.give_back(a);
  pool.give_back(nullptr);
  CHECK(pool.foreign() == 2);
  CHECK(pool.in_use() == 0);
  CHECK(pool.take() == a);
  CHECK(pool.take() != a);
  CHECK(pool.in_use() == 2);
}

TEST_CASE("tiny sizes are raised to 1 KiB; zero max means one buffer") {
  BufferPool pool(10, 0);
  CHECK(pool.buffer_bytes() == 1024);
  CHECK(pool.take() != nullptr);
  CHECK(pool.take() == nullptr);
}

TEST_CASE("concurrent take and give_back keep the books") {
  BufferPool pool(2048, 8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool] {
      for (int i = 0; i < 2000; ++i) {
        std::uint8_t* p = pool.take();
        if (p) {
          p[0] = 1;
          pool.give_back(p);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(pool.in_use() == 0);
  CHECK(pool.allocated() <= 8);
  CHECK(pool.foreign() == 0);
}
