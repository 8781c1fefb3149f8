// The collector's clock (tsc_clock.hpp): the pure conversion math, the invariant-TSC check, the
// calibration at load, the re-check, the history of scales (the current one is its last) and
// the conversions of ticks and of now.
#include "tsc_clock.hpp"

#include <sys/mman.h>
#include <time.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

namespace amdahl::profiler::detail {

std::atomic<bool> g_tsc_on{false};

// 128-bit products (GCC and clang; __extension__ keeps -Wpedantic quiet).
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

std::uint64_t tsc_mult(std::uint64_t dtsc, std::int64_t dns) noexcept {
  if (dtsc == 0 || dns <= 0) return 0;
  const u128 m = (static_cast<u128>(dns) << kTscShift) / dtsc;
  return m > UINT64_MAX ? UINT64_MAX : static_cast<std::uint64_t>(m);
}

TscScale tsc_line(std::uint64_t tsc0, std::int64_t ns0, std::uint64_t mult) noexcept {
  return TscScale{tsc0, ns0, mult, tsc0, ns0, mult};
}

TscScale tsc_slew(const TscScale& cur, std::uint64_t tsc_now, std::int64_t mono_now,
                  std::uint64_t mult_true, std::uint64_t horizon) noexcept {
  const std::int64_t here = tsc_to_ns(cur, tsc_now);
  if (horizon == 0 || mult_true == 0) return tsc_line(tsc_now, here, cur.mult1);
  TscScale next = tsc_line(tsc_now, here, mult_true);
  const std::int64_t target = tsc_to_ns(tsc_line(tsc_now, mono_now, mult_true), tsc_now + horizon);
  std::uint64_t m = tsc_mult(horizon, target - next.ns0);
  const std::uint64_t lo = mult_true / 2;
  const std::uint64_t hi = mult_true > UINT64_MAX / 2 ? UINT64_MAX : mult_true * 2;
  if (m < lo) m = lo;
  if (m > hi) m = hi;
  next.mult = m;
  next.tsc1 = tsc_now + horizon;
  next.ns1 = tsc_to_ns(tsc_line(tsc_now, here, m), next.tsc1);
  next.mult1 = mult_true;
  return next;
}

bool cpuinfo_flags_invariant_tsc(const char* line) noexcept {
  if (line == nullptr) return false;
  auto has = [line](const char* word) {
    const std::size_t n = std::strlen(word);
    for (const char* p = std::strstr(line, word); p != nullptr; p = std::strstr(p + 1, word)) {
      const bool start = p == line || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':';
      const char e = p[n];
      if (start && (e == '\0' || e == ' ' || e == '\n' || e == '\t')) return true;
    }
    return false;
  };
  return has("constant_tsc") && has("nonstop_tsc");
}

TscTrust tsc_trust(bool cpuid_invariant, const char* clocksource, const char* cpuinfo_flags) noexcept {
  if (cpuid_invariant) return TscTrust::Cpuid;
  if (clocksource != nullptr) {
    const std::size_t n = std::strcspn(clocksource, " \t\r\n");
    if (n == 3 && std::strncmp(clocksource, "tsc", 3) == 0) return TscTrust::KernelClocksource;
  }
  if (cpuinfo_flags_invariant_tsc(cpuinfo_flags)) return TscTrust::CpuinfoFlags;
  return TscTrust::None;
}

const char* tsc_trust_name(TscTrust t) noexcept {
  switch (t) {
    case TscTrust::Cpuid: return "cpuid";
    case TscTrust::KernelClocksource: return "kernel clocksource tsc";
    case TscTrust::CpuinfoFlags: return "cpuinfo constant_tsc nonstop_tsc";
    case TscTrust::None: break;
  }
  return "none";
}

namespace {

// The first line of `path` that starts with `prefix` (the whole first line for ""), into buf;
// nullptr when unreadable or absent. Plain stdio, at collector load only.
const char* read_line(const char* path, const char* prefix, char* buf, int size) noexcept {
  std::FILE* f = std::fopen(path, "re");
  if (f == nullptr) return nullptr;
  const std::size_t plen = std::strlen(prefix);
  const char* found = nullptr;
  int lines = 0;
  while (std::fgets(buf, size, f) != nullptr && ++lines < 100000) {
    if (std::strncmp(buf, prefix, plen) == 0) {
      found = buf;
      break;
    }
  }
  std::fclose(f);
  return found;
}

std::int64_t mono_ns() noexcept {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

#if defined(__x86_64__)
inline std::uint64_t read_tsc() noexcept { return __rdtsc(); }
#else
inline std::uint64_t read_tsc() noexcept { return 0; }
#endif

struct Pair {
  std::uint64_t tsc = 0;
  std::int64_t ns = 0;
};

// A TSC reading and a CLOCK_MONOTONIC reading taken together: of a few tries, the one whose TSC
// bracket around clock_gettime is tightest, its TSC taken at the bracket's middle.
Pair read_pair() noexcept {
  Pair best;
  std::uint64_t width = UINT64_MAX;
  for (int i = 0; i < 7; ++i) {
    const std::uint64_t a = read_tsc();
    const std::int64_t ns = mono_ns();
    const std::uint64_t b = read_tsc();
    if (b >= a && b - a < width) {
      width = b - a;
      best = Pair{a + (b - a) / 2, ns};
    }
  }
  return best;
}

// The scale's history (below) has one writer at a time: g_recheck_busy.
std::atomic<bool>& g_use_tsc = g_tsc_on;
std::atomic<bool> g_recheck_busy{false};
ClockSource g_source = ClockSource::Monotonic;
TscTrust g_trust = TscTrust::None;
Pair g_origin;                   // the first calibration pair: the long baseline of the rate
std::uint64_t g_last_check = 0;  // TSC of the last re-check

// A re-check that finds the clock within this of CLOCK_MONOTONIC (and the rate within 1e-7)
// leaves the scale alone: a pair read through clock_gettime is good to a few tens of ns.
constexpr std::int64_t kSteadyErrorNs = 250;

// The history of scales (tsc_clock.hpp, ticks): blocks of kHistBlock scales, mapped as needed
// (never freed: a part write may read them from a signal handler). One writer at a time (the
// re-check's g_recheck_busy, or clock_init before any reader); readers take g_hist_count with
// acquire, and every scale below it is complete.
constexpr std::uint32_t kHistBlock = 1024;
constexpr std::uint32_t kHistBlocks = 1024;  // 1 Mi scales: years of re-checks that change the scale
std::atomic<TscScale*> g_hist[kHistBlocks] = {};
std::atomic<std::uint32_t> g_hist_count{0};

const TscScale& hist_at(std::uint32_t i) noexcept {
  return g_hist[i / kHistBlock].load(std::memory_order_acquire)[i % kHistBlock];
}

// Appends a scale; false when it cannot (no memory, history full): the clock keeps the last
// scale then. The last scale is the clock's current one: clock_now_ns reads it, no copy of it
// is kept elsewhere.
bool hist_append(const TscScale& s) noexcept {
  const std::uint32_t n = g_hist_count.load(std::memory_order_relaxed);
  if (n >= kHistBlock * kHistBlocks) return false;
  TscScale* block = g_hist[n / kHistBlock].load(std::memory_order_relaxed);
  if (block == nullptr) {
    void* mem = ::mmap(nullptr, sizeof(TscScale) * kHistBlock, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return false;
    block = static_cast<TscScale*>(mem);
    g_hist[n / kHistBlock].store(block, std::memory_order_release);
  }
  block[n % kHistBlock] = s;
  g_hist_count.store(n + 1, std::memory_order_release);
  return true;
}

// The current scale: the history's last (false when there is none: not on the TSC).
bool load_scale(TscScale& out) noexcept {
  const std::uint32_t n = g_hist_count.load(std::memory_order_acquire);
  if (n == 0) return false;
  out = hist_at(n - 1);
  return true;
}

// Plausible TSC rates: 100 MHz to 20 GHz (mult = 2^32 ns per tick).
bool plausible(std::uint64_t mult) noexcept {
  const std::uint64_t per_ghz = std::uint64_t{1} << kTscShift;  // 1 tick = 1 ns
  return mult >= per_ghz / 20 && mult <= per_ghz * 10;
}

}  // namespace

bool cpu_has_invariant_tsc() noexcept {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) == 0 || a < 0x80000007u) return false;
  if (__get_cpuid(0x80000007u, &a, &b, &c, &d) == 0) return false;
  return (d & (1u << 8)) != 0;
#else
  return false;
#endif
}

void clock_init(bool force_monotonic) noexcept {
  g_use_tsc.store(false, std::memory_order_relaxed);
  g_hist_count.store(0, std::memory_order_relaxed);
  g_source = ClockSource::Monotonic;
  g_trust = TscTrust::None;
  if (force_monotonic) return;
#if defined(__x86_64__)
  const bool cpuid = cpu_has_invariant_tsc();
  char src[64];
  static char flags[16384];  // /proc/cpuinfo's flags line (~1.5 KB today); at load, one thread
  const char* cs = cpuid ? nullptr : read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", "", src, sizeof src);
  const char* fl = cpuid ? nullptr : read_line("/proc/cpuinfo", "flags", flags, sizeof flags);
  const TscTrust trust = tsc_trust(cpuid, cs, fl);
#else
  const TscTrust trust = TscTrust::None;
#endif
  if (trust == TscTrust::None) return;
  const Pair a = read_pair();
  std::int64_t ns = a.ns;
  while (ns - a.ns < 200'000) ns = mono_ns();  // 200 us: the first rate, refined by re-checks
  const Pair b = read_pair();
  const std::uint64_t mult = b.tsc > a.tsc ? tsc_mult(b.tsc - a.tsc, b.ns - a.ns) : 0;
  if (!plausible(mult)) return;
  g_hist_count.store(0, std::memory_order_relaxed);
  if (!hist_append(tsc_line(b.tsc, b.ns, mult))) return;
  g_origin = a;
  g_last_check = b.tsc;
  g_source = ClockSource::Tsc;
  g_trust = trust;
  g_use_tsc.store(true, std::memory_order_release);
}

ClockSource clock_source() noexcept { return g_source; }
TscTrust clock_tsc_trust() noexcept { return g_trust; }

std::int64_t clock_now_ns() noexcept {
  if (g_use_tsc.load(std::memory_order_relaxed)) {
    TscScale s;
    if (load_scale(s)) return tsc_to_ns(s, read_tsc());
  }
  return mono_ns();
}

std::int64_t clock_recheck() noexcept {
  if (!g_use_tsc.load(std::memory_order_acquire)) return 0;
  if (g_recheck_busy.exchange(true, std::memory_order_acquire)) return 0;
  const Pair now = read_pair();
  TscScale cur;
  if (!load_scale(cur)) {
    g_recheck_busy.store(false, std::memory_order_release);
    return 0;
  }
  const std::int64_t error = tsc_to_ns(cur, now.tsc) - now.ns;
  if (now.tsc > g_origin.tsc && now.tsc > g_last_check) {
    const std::uint64_t mult_true = tsc_mult(now.tsc - g_origin.tsc, now.ns - g_origin.ns);
    if (plausible(mult_true)) {
      // The error is worked off over the next ~100 ms of ticks.
      const std::uint64_t horizon = static_cast<std::uint64_t>(
          (static_cast<u128>(100'000'000) << kTscShift) / mult_true);
      // A scale that would change nothing worth keeping (error and rate both within
      // kSteadyErrorNs and 1e-7) is not appended: the history grows only when the clock moves.
      const std::uint64_t drate = mult_true > cur.mult1 ? mult_true - cur.mult1 : cur.mult1 - mult_true;
      const bool steady = (error < 0 ? -error : error) <= kSteadyErrorNs && drate <= cur.mult1 / 10'000'000;
      if (!steady) {
        const TscScale next = tsc_slew(cur, now.tsc, now.ns, mult_true, horizon);
        hist_append(next);
      }
      g_last_check = now.tsc;
    }
  }
  g_recheck_busy.store(false, std::memory_order_release);
  return error;
}

std::int64_t clock_ticks_slow() noexcept { return mono_ns(); }

void clock_after_fork_child() noexcept { g_recheck_busy.store(false, std::memory_order_relaxed); }

std::uint32_t clock_scale_count() noexcept {
  return g_use_tsc.load(std::memory_order_acquire) ? g_hist_count.load(std::memory_order_acquire) : 0;
}

std::int64_t ticks_to_ns(std::int64_t ticks) noexcept {
  TickConverter c;
  return c(ticks);
}

TickConverter::TickConverter() noexcept
    : n_(g_hist_count.load(std::memory_order_acquire)),
      last_(n_ == 0 ? 0 : n_ - 1),
      tsc_(g_use_tsc.load(std::memory_order_acquire) && n_ > 0) {}

std::int64_t TickConverter::convert_slow(std::uint64_t t) noexcept {
  last_ = scale_index(n_, t, last_, [](std::uint32_t i) { return hist_at(i).tsc0; });
  cur_ = hist_at(last_);
  // The range of ticks this scale serves: from its anchor (from 0 for the first) to the next
  // one's (to the end for the last).
  lo_ = last_ == 0 ? 0 : cur_.tsc0;
  hi_ = last_ + 1 < n_ ? hist_at(last_ + 1).tsc0 : UINT64_MAX;
  return tsc_to_ns(cur_, t);
}

std::uint64_t clock_tsc_khz() noexcept {
  if (!g_use_tsc.load(std::memory_order_acquire)) return 0;
  TscScale s;
  const std::uint64_t m = load_scale(s) ? s.mult1 : 0;
  if (m == 0) return 0;
  // kHz = 1e6 / (ns per tick) = 1e6 * 2^32 / mult
  return static_cast<std::uint64_t>((static_cast<u128>(1'000'000) << kTscShift) / m);
}

}  // namespace amdahl::profiler::detail
