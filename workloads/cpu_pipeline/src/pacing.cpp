// Monotonic clock, absolute-deadline sleep and the deadline chain of --cost sleep.
#include "pacing.hpp"

#include <sys/prctl.h>
#include <time.h>

#include <cerrno>
#include <cmath>

namespace amdahl::cpu_pipeline {

std::int64_t monotonic_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

void sleep_until_ns(std::int64_t deadline_ns) noexcept {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(deadline_ns / 1'000'000'000);
  ts.tv_nsec = static_cast<long>(deadline_ns % 1'000'000'000);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

Pacer::Pacer(bool enabled) noexcept : enabled_(enabled) {
  if (enabled_) prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

void Pacer::restart() noexcept { deadline_ns_ = monotonic_ns(); }

void Pacer::spend_ms(double ms) noexcept {
  if (!enabled_) return;
  deadline_ns_ += static_cast<std::int64_t>(std::llround(ms * 1e6));
  sleep_until_ns(deadline_ns_);
}

}  // namespace amdahl::cpu_pipeline
