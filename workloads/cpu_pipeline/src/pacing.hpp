// Time for --cost sleep: a monotonic clock and a Pacer that sleeps to absolute deadlines
// (clock_nanosleep TIMER_ABSTIME), chained from stage to stage and step to step on one thread,
// so that a late wake-up in one stage is absorbed by the next instead of accumulating.
#pragma once

#include <cstdint>

namespace amdahl::cpu_pipeline {

// CLOCK_MONOTONIC in nanoseconds (the collector's clock too).
std::int64_t monotonic_ns() noexcept;

// Sleeps until CLOCK_MONOTONIC reaches `deadline_ns` (returns at once if it is past).
void sleep_until_ns(std::int64_t deadline_ns) noexcept;

class Pacer {
 public:
  // An enabled Pacer sets the calling thread's timer slack to 1 ns (prctl PR_SET_TIMERSLACK;
  // the default 50 us would be added to every sleep). Construct it on the thread that uses it.
  explicit Pacer(bool enabled) noexcept;
  // Starts a new chain of deadlines at the current time: at the thread's start and after it
  // blocked on something else (a queue). Otherwise the chain goes on, so a late wake-up is
  // caught up by the next stage.
  void restart() noexcept;
  // Extends the chain by `ms` and sleeps to its end. A no-op when disabled (--cost work).
  void spend_ms(double ms) noexcept;

 private:
  bool enabled_;
  std::int64_t deadline_ns_ = 0;
};

}  // namespace amdahl::cpu_pipeline
