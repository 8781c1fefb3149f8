// The progress line on stderr (progress.hpp): throttling, drawing and erasing.
#include "progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

namespace amdahl::cli {
namespace {

bool g_quiet = false;

std::int64_t monotonic_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

ProgressLine::ProgressLine(std::FILE* out, bool enabled, Clock now, std::int64_t delay_ns, std::int64_t interval_ns)
    : out_(out), enabled_(enabled), now_(std::move(now)), delay_ns_(delay_ns), interval_ns_(interval_ns) {
  start_ns_ = now_();
}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::update(const char* phase, std::uint64_t count, const char* unit) {
  if (!enabled_) return;
  const std::int64_t t = now_();
  const bool new_phase = phase_ != phase;
  if (new_phase) phase_ = phase;
  if (t - start_ns_ < delay_ns_) return;
  if (!new_phase && shown_ && t - last_draw_ns_ < interval_ns_) return;
  // Appended piece by piece (GCC 12's -Wrestrict misfires on chained operator+ here).
  std::string line = "\ramdahl: ";
  line.append(phase_).append("\u2026");
  if (count > 0) {
    line.append(" ").append(count_text(count));
    if (*unit != '\0') line.append(" ").append(unit);
  }
  line.append("\x1b[K");  // erase the rest of a longer previous line
  std::fputs(line.c_str(), out_);
  std::fflush(out_);
  shown_ = true;
  last_draw_ns_ = t;
  ++draws_;
}

void ProgressLine::clear() {
  if (!shown_) return;
  std::fputs("\r\x1b[K", out_);
  std::fflush(out_);
  shown_ = false;
}

std::string count_text(std::uint64_t n) {
  char buf[32];
  if (n < 1000) std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(n));
  else if (n < 1'000'000) std::snprintf(buf, sizeof buf, "%.1f k", static_cast<double>(n) / 1e3);
  else if (n < 1'000'000'000) std::snprintf(buf, sizeof buf, "%.1f M", static_cast<double>(n) / 1e6);
  else std::snprintf(buf, sizeof buf, "%.1f G", static_cast<double>(n) / 1e9);
  return buf;
}

void set_quiet(bool quiet) { g_quiet = quiet; }

ProgressLine& progress() {
  static ProgressLine line(
      stderr,
      !g_quiet && ::isatty(STDERR_FILENO) == 1 &&
          [] {
            const char* term = std::getenv("TERM");
            return term == nullptr || std::strcmp(term, "dumb") != 0;
          }(),
      monotonic_ns, [] {  // AMDAHL_PROGRESS_DELAY_MS: another delay (the tests use 0)
        const char* d = std::getenv("AMDAHL_PROGRESS_DELAY_MS");
        return d != nullptr && *d != '\0' ? std::atoll(d) * 1'000'000 : ProgressLine::kDelayNs;
      }());
  return line;
}

}  // namespace amdahl::cli
