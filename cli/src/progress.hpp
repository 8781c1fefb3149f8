// The progress line of long work (loading a big profile, analysing, replaying, exporting): one
// line on stderr, "amdahl: loading profile... 3.2 M events", redrawn in place and erased when
// the work is done, so that nothing of it stays on the terminal. Shown only when stderr is a
// terminal (and TERM is not "dumb") and --quiet was not given, and only once the command has
// run for `delay` (1 s): short commands never show one. The long loops report through cheap
// callbacks (format::LoadOptions::on_rows, chrome::ChromeExportOptions::on_events) that call
// update(); update() draws at most once per `interval` (100 ms), or at once when the phase
// changes. Not thread-safe: the loops call back on the calling thread only.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace amdahl::cli {

class ProgressLine {
 public:
  using Clock = std::function<std::int64_t()>;  // monotonic ns
  static constexpr std::int64_t kDelayNs = 1'000'000'000;
  static constexpr std::int64_t kIntervalNs = 100'000'000;

  ProgressLine(std::FILE* out, bool enabled, Clock now, std::int64_t delay_ns = kDelayNs,
               std::int64_t interval_ns = kIntervalNs);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // The work now is `phase` ("loading profile"), with `count` `unit`s done so far (0: no count).
  void update(const char* phase, std::uint64_t count = 0, const char* unit = "");
  // Erases the line if one is shown (before anything else is printed, and at the end).
  void clear();

  std::size_t draws() const { return draws_; }  // lines drawn so far (tests)
  bool shown() const { return shown_; }

 private:
  std::FILE* out_;
  bool enabled_;
  Clock now_;
  std::int64_t start_ns_, delay_ns_, interval_ns_;
  std::int64_t last_draw_ns_ = 0;
  std::string phase_;
  bool shown_ = false;
  std::size_t draws_ = 0;
};

// "950", "12.3 k", "3.2 M": a count for the line.
std::string count_text(std::uint64_t n);

// --quiet (main.cpp): no progress line.
void set_quiet(bool quiet);

// The process's progress line on stderr: enabled when stderr is a terminal, TERM is not "dumb"
// and not --quiet; its delay (AMDAHL_PROGRESS_DELAY_MS, default 1000) runs from the first call
// (at the start of main).
ProgressLine& progress();

}  // namespace amdahl::cli
