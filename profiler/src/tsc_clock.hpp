// The collector's clock: CLOCK_MONOTONIC nanoseconds, read through the TSC where the TSC is
// invariant (CPUID 0x80000007 EDX bit 8: constant rate, runs in every C-state; or, where a
// virtual machine's CPUID hides that bit, the kernel says so: its clocksource is `tsc`, or
// /proc/cpuinfo's flags have constant_tsc and nonstop_tsc), else through clock_gettime. A TSC reading converts with one multiply and shift against a scale (an anchor
// pair of TSC and CLOCK_MONOTONIC readings and a rate) calibrated at load and re-checked against
// CLOCK_MONOTONIC by the flusher thread: each re-check slews the rate so that the converted time
// meets CLOCK_MONOTONIC again one horizon later, never stepping backwards. So converted times stay
// on CLOCK_MONOTONIC's time base (CUPTI's timestamps and other processes' parts are merged on it).
// AMDAHL_CLOCK=monotonic forces clock_gettime. The conversion math is pure (tsc_math below).
#pragma once

#include <atomic>
#include <cstdint>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace amdahl::profiler::detail {

// Two line segments: before tsc1, ns = ns0 + ((tsc - tsc0) * mult) >> kTscShift (signed: a TSC
// read just before tsc0 on another core converts to a time just before ns0); from tsc1 on,
// ns = ns1 + ((tsc - tsc1) * mult1) >> kTscShift. The first is a re-check's slew, the second the
// true rate (a scale without a slew has tsc1 = tsc0, ns1 = ns0, mult1 = mult).
inline constexpr unsigned kTscShift = 32;
struct TscScale {
  std::uint64_t tsc0 = 0;
  std::int64_t ns0 = 0;
  std::uint64_t mult = 0;  // nanoseconds per tick, times 2^kTscShift
  std::uint64_t tsc1 = 0;
  std::int64_t ns1 = 0;
  std::uint64_t mult1 = 0;
};
// A one-segment scale.
TscScale tsc_line(std::uint64_t tsc0, std::int64_t ns0, std::uint64_t mult) noexcept;

// --- pure math ------------------------------------------------------------------------------
// The rate of `dns` nanoseconds over `dtsc` ticks (0 when dtsc is 0 or dns is not positive).
std::uint64_t tsc_mult(std::uint64_t dtsc, std::int64_t dns) noexcept;
// A TSC reading in nanoseconds on the scale (inline: the hot path's conversion).
inline std::int64_t tsc_to_ns(const TscScale& s, std::uint64_t tsc) noexcept {
  __extension__ typedef __int128 i128_t;
  const auto d1 = static_cast<std::int64_t>(tsc - s.tsc1);
  if (d1 >= 0) [[likely]] {
    const i128_t p = static_cast<i128_t>(d1) * static_cast<i128_t>(s.mult1);
    return s.ns1 + static_cast<std::int64_t>(p >> kTscShift);
  }
  const auto d = static_cast<std::int64_t>(tsc - s.tsc0);
  const i128_t p = static_cast<i128_t>(d) * static_cast<i128_t>(s.mult);
  return s.ns0 + static_cast<std::int64_t>(p >> kTscShift);
}
// The next scale at a re-check: anchored where the current scale puts `tsc_now` (continuous, so
// never a step back), with a rate that reaches the true line (mono_now at tsc_now, rate
// `mult_true`) `horizon` ticks later, and the true rate from there on. The slew's rate is kept
// within [mult_true/2, 2*mult_true] (a large error is worked off over several re-checks), so the
// clock never runs backwards.
TscScale tsc_slew(const TscScale& cur, std::uint64_t tsc_now, std::int64_t mono_now,
                  std::uint64_t mult_true, std::uint64_t horizon) noexcept;
// Whether the flags line of /proc/cpuinfo has both constant_tsc and nonstop_tsc.
bool cpuinfo_flags_invariant_tsc(const char* flags_line) noexcept;

// Why the TSC is trusted as a clock (None: it is not). Pure: CPUID's invariant-TSC bit, the
// kernel's current clocksource (/sys/devices/system/clocksource/clocksource0/current_clocksource,
// nullptr when unreadable) and the first flags line of /proc/cpuinfo (nullptr when unreadable).
// A VM's CPUID may hide the bit (seen on the lent H100 host) while its kernel keeps time on the
// TSC: the kernel checked the TSC's stability and synchronisation across CPUs at boot.
enum class TscTrust { None, Cpuid, KernelClocksource, CpuinfoFlags };
TscTrust tsc_trust(bool cpuid_invariant, const char* clocksource, const char* cpuinfo_flags) noexcept;
const char* tsc_trust_name(TscTrust t) noexcept;

// --- the process's clock --------------------------------------------------------------------
enum class ClockSource { Monotonic, Tsc };
// Chooses and calibrates the clock (once, at collector load; ~200 us with the TSC).
// force_monotonic: AMDAHL_CLOCK=monotonic.
void clock_init(bool force_monotonic) noexcept;
ClockSource clock_source() noexcept;
// Why clock_init chose the TSC (None when it did not, or was told not to).
TscTrust clock_tsc_trust() noexcept;
// Whether this CPU reports an invariant TSC (false off x86-64).
bool cpu_has_invariant_tsc() noexcept;
// Now, in CLOCK_MONOTONIC nanoseconds: one rdtsc converted with the history's last scale (the
// recording hot path reads ticks instead: clock_ticks below).
std::int64_t clock_now_ns() noexcept;
// Re-checks the TSC scale against CLOCK_MONOTONIC (the flusher, at most every few hundred ms).
// Returns the error it found (converted minus CLOCK_MONOTONIC, ns); 0 when not on the TSC.
std::int64_t clock_recheck() noexcept;
// In a fork child (one thread): a re-check the fork interrupted in the parent's flusher would
// leave the re-check flag set for good; the child clears it.
void clock_after_fork_child() noexcept;
// The rate in kHz of the TSC as calibrated (0 when not on the TSC).
std::uint64_t clock_tsc_khz() noexcept;

// --- ticks: the recording hot path's raw reading, converted when the part is written ---------
// A tick is the TSC itself where the clock is on the TSC, else CLOCK_MONOTONIC nanoseconds. The
// NVTX records keep ticks (one rdtsc, no scale to read, no multiply); ticks_to_ns converts them
// when the part is written, with the scale that was in force at that tick: clock_init and every
// re-check append the scale they publish to a history (the segment from its anchor tsc0 on), so
// a tick converts to what clock_now_ns() returned at that moment. 0 is never a tick (an open
// range's end is 0).
std::int64_t clock_ticks() noexcept;
// A tick in CLOCK_MONOTONIC nanoseconds. Lock-free and async-signal-safe (the crash path's part
// write); O(log scales), or O(1) through a TickConverter for ticks in rising order.
std::int64_t ticks_to_ns(std::int64_t ticks) noexcept;
// The number of scales in the history (1 after clock_init on the TSC, + 1 a re-check that changed
// the scale; 0 off the TSC).
std::uint32_t clock_scale_count() noexcept;
// Converts many ticks, remembering the last scale used (the part writer: one per thread's
// records, which come in rising order, so almost every lookup is one compare).
class TickConverter {
 public:
  TickConverter() noexcept;
  std::int64_t operator()(std::int64_t ticks) noexcept {
    if (!tsc_) return ticks;
    const auto t = static_cast<std::uint64_t>(ticks);
    if (t >= lo_ && t < hi_) [[likely]] return tsc_to_ns(cur_, t);
    return convert_slow(t);
  }

 private:
  std::int64_t convert_slow(std::uint64_t t) noexcept;
  std::uint32_t n_ = 0;     // scales in the history when made
  std::uint32_t last_ = 0;  // the scale of the last lookup
  bool tsc_ = false;
  TscScale cur_{};          // history[last_], for ticks in [lo_, hi_)
  std::uint64_t lo_ = 1;
  std::uint64_t hi_ = 0;
};

// --- pure: the scale of a tick ---------------------------------------------------------------
// Of n scales whose anchors anchor(0) < anchor(1) < ..., the index of the last one anchored at
// or before `tsc` (0 when tsc lies before them all: the first scale extends backwards). `hint`:
// tried first, with the one after it.
template <class AnchorOf>
std::uint32_t scale_index(std::uint32_t n, std::uint64_t tsc, std::uint32_t hint, AnchorOf anchor) noexcept {
  if (n <= 1) return 0;
  if (hint < n && anchor(hint) <= tsc) {
    if (hint + 1 == n || tsc < anchor(hint + 1)) return hint;
    if (hint + 2 == n || tsc < anchor(hint + 2)) return hint + 1;
  }
  std::uint32_t lo = 0, hi = n;  // the answer is lo - 1 at the end: anchor(lo - 1) <= tsc < anchor(lo)
  while (lo < hi) {
    const std::uint32_t mid = lo + (hi - lo) / 2;
    if (anchor(mid) <= tsc) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo == 0 ? 0 : lo - 1;
}

// --- the hot path's tick read (inline; g_tsc_on is defined in tsc_clock.cpp) ---------------
extern std::atomic<bool> g_tsc_on;
std::int64_t clock_ticks_slow() noexcept;  // CLOCK_MONOTONIC, off the TSC

inline std::int64_t clock_ticks() noexcept {
#if defined(__x86_64__)
  if (g_tsc_on.load(std::memory_order_relaxed)) [[likely]] return static_cast<std::int64_t>(__rdtsc());
#endif
  return clock_ticks_slow();
}

}  // namespace amdahl::profiler::detail
