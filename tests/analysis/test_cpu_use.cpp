// worker_cost_range (cpu_use.hpp): what a loader worker pays per batch relative to inline
// loading, from the CPU clocks of the inline loading ranges, and the cores bound.
#include <cmath>

#include <doctest/doctest.h>

#include "amdahl/analysis/cpu_use.hpp"

using namespace amdahl::analysis;

namespace {

CpuUse with_loading(double wall, double thread, double process, std::uint32_t cpus = 16) {
  CpuUse c;
  c.known = true;
  c.cpus_allowed = cpus;
  c.loading.ranges = 10;
  c.loading.wall_ns = wall;
  c.loading.thread_cpu_ns = thread;
  c.loading.process_cpu_ns = process;
  return c;
}

}  // namespace

TEST_CASE("a single-threaded inline loader: a worker pays what it paid") {
  const WorkerCostRange w = worker_cost_range(with_loading(100, 98, 99), 4);
  CHECK(w.measured);
  CHECK_FALSE(w.spinning);
  CHECK(w.low == 1.0);
  CHECK(w.high == doctest::Approx(1.01));
}

TEST_CASE("other threads' work during inline loading: a worker's one thread does it itself") {
  // 100 ms wall, the driving thread on a CPU 90 ms, the process 150 ms: 60 ms on other threads,
  // 10 ms off-CPU -> a worker: 90 + 60 + 10 = 160 ms.
  const WorkerCostRange w = worker_cost_range(with_loading(100, 90, 150), 4);
  CHECK(w.measured);
  CHECK(w.high == doctest::Approx(1.6));
}

TEST_CASE("a spinning pool (more than 2 cores busy) hides its work: the high end is assumed") {
  const WorkerCostRange w = worker_cost_range(with_loading(100, 100, 1562), 4);
  CHECK_FALSE(w.measured);
  CHECK(w.spinning);
  CHECK(w.high == doctest::Approx(1.3));
}

TEST_CASE("no CPU times: assumed, not spinning") {
  CpuUse c;
  const WorkerCostRange w = worker_cost_range(c, 4, 1.25);
  CHECK_FALSE(w.measured);
  CHECK_FALSE(w.spinning);
  CHECK(w.high == doctest::Approx(1.25));
  CHECK(std::isinf(w.cpu_bound_speedup));
}

TEST_CASE("the cores bound: CPUs allowed x the steps' wall over the driving thread's CPU in them") {
  CpuUse c = with_loading(100, 100, 100, 2);
  c.steps_wall_ns = 1000;
  c.steps_thread_cpu_ns = 800;  // on a CPU 80% of its steps
  CHECK(worker_cost_range(c, 2).cpu_bound_speedup == doctest::Approx(2.5));
  c.cpus_allowed = 0;  // unknown
  CHECK(std::isinf(worker_cost_range(c, 2).cpu_bound_speedup));
}
