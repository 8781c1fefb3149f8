// The collector's clock (profiler/src/tsc_clock.hpp): the conversion math as pure functions,
// and the process clock itself: monotonic, on CLOCK_MONOTONIC's time base within a stated bound,
// and the clock_gettime fallback.
#include <time.h>

#include <cstdint>
#include <doctest/doctest.h>

#include <string>
#include <initializer_list>
#include <vector>

#include "tsc_clock.hpp"

namespace {

using namespace amdahl::profiler::detail;

std::int64_t mono() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

constexpr std::uint64_t kOneNsPerTick = std::uint64_t{1} << kTscShift;

TEST_CASE("tsc_mult is nanoseconds per tick in 32.32 fixed point") {
  CHECK(tsc_mult(1000, 1000) == kOneNsPerTick);
  CHECK(tsc_mult(3000, 1000) == kOneNsPerTick / 3);  // a 3 GHz TSC
  CHECK(tsc_mult(0, 1000) == 0);
  CHECK(tsc_mult(1000, 0) == 0);
  CHECK(tsc_mult(1000, -5) == 0);
}

TEST_CASE("tsc_to_ns converts on the line, before the anchor too") {
  const TscScale s = tsc_line(1'000'000, 5'000, tsc_mult(3, 1));  // 3 ticks per ns
  CHECK(tsc_to_ns(s, 1'000'000) == 5'000);
  CHECK(tsc_to_ns(s, 1'000'000 + 3'000'000'000ULL) == 5'000 + 1'000'000'000 - 1);  // 1/3 truncates
  CHECK(tsc_to_ns(s, 1'000'000 - 3'000) <= 5'000 - 999);
  CHECK(tsc_to_ns(s, 1'000'000 - 3'000) >= 5'000 - 1'001);
  // Far from the anchor (an hour at 3 GHz) the 128-bit product does not overflow.
  const std::uint64_t hour = 3ULL * 3'600'000'000'000ULL;
  const std::int64_t h = tsc_to_ns(s, 1'000'000 + hour);
  CHECK(h - 5'000 >= 3'600'000'000'000LL - 3'000);  // mult truncates: < 2^-32 ns per tick
  CHECK(h - 5'000 <= 3'600'000'000'000LL);
}

TEST_CASE("tsc_slew is continuous, meets the true line after the horizon and keeps its rate from there") {
  const std::uint64_t m = kOneNsPerTick;  // 1 tick = 1 ns
  for (const std::int64_t err : {std::int64_t{+50'000}, std::int64_t{-50'000}, std::int64_t{0}}) {
    CAPTURE(err);
    const TscScale cur = tsc_line(0, 0, m);
    // At tsc 1e9 the current scale says 1e9; the truth is 1e9 - err.
    const std::uint64_t now = 1'000'000'000;
    const TscScale next = tsc_slew(cur, now, 1'000'000'000 - err, m, 100'000'000);
    CHECK(tsc_to_ns(next, now) == tsc_to_ns(cur, now));                   // no step
    const std::int64_t at_h = tsc_to_ns(next, now + 100'000'000);
    CHECK(at_h >= 1'100'000'000 - err - 1);
    CHECK(at_h <= 1'100'000'000 - err + 1);
    CHECK(tsc_to_ns(next, now + 200'000'000) - at_h == 100'000'000);   // the true rate after
    std::int64_t last = tsc_to_ns(next, now);
    for (std::uint64_t t = now; t < now + 300'000'000; t += 1'000'003) {  // never backwards
      const std::int64_t v = tsc_to_ns(next, t);
      CHECK(v >= last);
      last = v;
    }
  }
}

TEST_CASE("tsc_slew bounds the slew rate, so a large error is worked off without a step back") {
  const std::uint64_t m = kOneNsPerTick;
  const TscScale cur = tsc_line(0, 0, m);
  // The current scale runs 1 s ahead; a 100 ms horizon cannot absorb it at half the rate.
  const TscScale next = tsc_slew(cur, 1'000'000'000, 0, m, 100'000'000);
  CHECK(next.mult == m / 2);
  CHECK(tsc_to_ns(next, 1'100'000'000) == 1'050'000'000);
  CHECK(tsc_to_ns(next, 1'100'000'000) > tsc_to_ns(next, 1'000'000'000));
}

TEST_CASE("cpuinfo flags: both constant_tsc and nonstop_tsc, as whole words") {
  CHECK(cpuinfo_flags_invariant_tsc("flags\t\t: fpu tsc constant_tsc rep_good nonstop_tsc cpuid"));
  CHECK(cpuinfo_flags_invariant_tsc("flags: constant_tsc nonstop_tsc\n"));
  CHECK_FALSE(cpuinfo_flags_invariant_tsc("flags: fpu tsc constant_tsc cpuid"));
  CHECK_FALSE(cpuinfo_flags_invariant_tsc("flags: xconstant_tsc nonstop_tscx"));
  CHECK_FALSE(cpuinfo_flags_invariant_tsc(nullptr));
}

TEST_CASE("tsc_trust: CPUID first, then the kernel's clocksource, then the cpuinfo flags") {
  CHECK(tsc_trust(true, nullptr, nullptr) == TscTrust::Cpuid);
  CHECK(tsc_trust(true, "kvm-clock\n", "flags: fpu") == TscTrust::Cpuid);
  CHECK(tsc_trust(false, "tsc\n", nullptr) == TscTrust::KernelClocksource);
  CHECK(tsc_trust(false, "tsc", "flags: fpu") == TscTrust::KernelClocksource);
  CHECK(tsc_trust(false, "kvm-clock\n", "flags: constant_tsc nonstop_tsc\n") == TscTrust::CpuinfoFlags);
  CHECK(tsc_trust(false, "kvm-clock\n", "flags: constant_tsc\n") == TscTrust::None);
  CHECK(tsc_trust(false, "tsc2\n", nullptr) == TscTrust::None);
  CHECK(tsc_trust(false, "hpet", nullptr) == TscTrust::None);
  CHECK(tsc_trust(false, nullptr, nullptr) == TscTrust::None);
  CHECK(std::string(tsc_trust_name(TscTrust::KernelClocksource)) == "kernel clocksource tsc");
  CHECK(std::string(tsc_trust_name(TscTrust::None)) == "none");
}

TEST_CASE("the fallback (AMDAHL_CLOCK=monotonic) is clock_gettime") {
  clock_init(true);
  CHECK(clock_source() == ClockSource::Monotonic);
  CHECK(clock_tsc_khz() == 0);
  CHECK(clock_recheck() == 0);
  for (int i = 0; i < 1000; ++i) {
    const std::int64_t a = mono();
    const std::int64_t c = clock_now_ns();
    const std::int64_t b = mono();
    REQUIRE(c >= a);
    REQUIRE(c <= b);
  }
}

TEST_CASE("the process clock is monotonic and on CLOCK_MONOTONIC within 50 us over a 200 ms run") {
  clock_init(false);
  if (clock_source() != ClockSource::Tsc) {
    CHECK(clock_tsc_trust() == TscTrust::None);
    CHECK_FALSE(cpu_has_invariant_tsc());
    MESSAGE("the TSC is not trusted here: CLOCK_MONOTONIC");
    return;
  }
  MESSAGE("TSC trusted by " << std::string(tsc_trust_name(clock_tsc_trust())));
  CHECK(clock_tsc_trust() != TscTrust::None);
  const std::uint64_t khz = clock_tsc_khz();
  CHECK(khz > 100'000);       // > 100 MHz
  CHECK(khz < 20'000'000);    // < 20 GHz
  std::int64_t last = clock_now_ns();
  std::int64_t worst = 0;
  const std::int64_t end = mono() + 200'000'000;
  int n = 0;
  for (std::int64_t m = mono(); m < end; m = mono()) {
    const std::int64_t t = clock_now_ns();
    REQUIRE(t >= last);
    last = t;
    if (++n % 4096 == 0) {
      // Bracketed by two CLOCK_MONOTONIC reads: the distance outside the bracket.
      const std::int64_t a = mono();
      const std::int64_t c = clock_now_ns();
      const std::int64_t b = mono();
      const std::int64_t off = c < a ? a - c : (c > b ? c - b : 0);
      if (off > worst) worst = off;
    }
    if (n % 200'000 == 0) clock_recheck();
  }
  MESSAGE("worst distance from CLOCK_MONOTONIC: " << worst << " ns over " << n << " reads");
  CHECK(worst < 50'000);
}

TEST_CASE("scale_index: the last scale anchored at or before the tick, the first before them all") {
  const std::uint64_t anchors[] = {100, 200, 300, 400};
  auto at = [&](std::uint32_t i) { return anchors[i]; };
  for (std::uint32_t hint : {0u, 1u, 2u, 3u, 7u}) {
    CAPTURE(hint);
    CHECK(scale_index(4, 50, hint, at) == 0);   // before the first: the first extends back
    CHECK(scale_index(4, 100, hint, at) == 0);
    CHECK(scale_index(4, 199, hint, at) == 0);
    CHECK(scale_index(4, 200, hint, at) == 1);
    CHECK(scale_index(4, 299, hint, at) == 1);
    CHECK(scale_index(4, 300, hint, at) == 2);
    CHECK(scale_index(4, 400, hint, at) == 3);
    CHECK(scale_index(4, ~std::uint64_t{0}, hint, at) == 3);
  }
  CHECK(scale_index(1, 5, 0, at) == 0);
  CHECK(scale_index(0, 5, 0, at) == 0);
}

TEST_CASE("ticks off the TSC are CLOCK_MONOTONIC nanoseconds, converted as they are") {
  clock_init(true);
  CHECK(clock_scale_count() == 0);
  const std::int64_t a = mono();
  const std::int64_t t = clock_ticks();
  const std::int64_t b = mono();
  CHECK(t >= a);
  CHECK(t <= b);
  CHECK(ticks_to_ns(t) == t);
}

TEST_CASE("ticks convert to what clock_now_ns said at that moment, before and after re-checks") {
  clock_init(false);
  if (clock_source() != ClockSource::Tsc) {
    MESSAGE("the TSC is not trusted here: ticks are CLOCK_MONOTONIC");
    return;
  }
  CHECK(clock_scale_count() == 1);
  // Ticks read over ~300 ms with re-checks between them; each converted at once and again at
  // the end, when later scales exist: the same nanoseconds, and bracketed by clock_now_ns.
  struct Read {
    std::int64_t before, tick, after, now_ns;
  };
  std::vector<Read> reads;
  const std::int64_t end = mono() + 300'000'000;
  for (int i = 0; mono() < end; ++i) {
    Read r{};
    r.before = clock_now_ns();
    r.tick = clock_ticks();
    r.after = clock_now_ns();
    r.now_ns = ticks_to_ns(r.tick);
    reads.push_back(r);
    if (i % 2000 == 0) clock_recheck();
  }
  MESSAGE(clock_scale_count() << " scales over " << reads.size() << " reads");
  CHECK(clock_scale_count() >= 1);
  TickConverter conv;
  std::int64_t last = 0;
  std::size_t bad_then = 0, bad_bracket = 0, backwards = 0;
  for (const Read& r : reads) {
    const std::int64_t ns = conv(r.tick);
    if (ns != ticks_to_ns(r.tick) || ns != r.now_ns) ++bad_then;
    if (ns < r.before || ns > r.after) ++bad_bracket;
    if (ns < last) ++backwards;
    last = ns;
  }
  CHECK(bad_then == 0);
  CHECK(bad_bracket == 0);
  CHECK(backwards == 0);
}

}  // namespace
