// Export of a profile as Chrome trace-event JSON (opens in Perfetto and chrome://tracing):
// host threads as tracks (real pid/tid, named), push/pop ranges as complete events with their
// stage, start/end ranges as async events, marks as instant events, CUDA API calls on their
// thread, GPU streams as their own tracks (a synthetic pid per process and device, tid = stream),
// and flow arrows for launches (API call -> GPU op, by correlation id) and produce -> consume.
// Viewers struggle past about a million events: the export keeps at most `max_events`.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <functional>
#include <optional>
#include <string>

#include "amdahl/format/profile.hpp"

namespace amdahl::chrome {

struct ChromeExportOptions {
  // Keep only events overlapping [start, end), in ns from the trace's time zero (its earliest
  // timestamp, which is where Perfetto's time axis starts).
  std::optional<std::int64_t> window_start_ns, window_end_ns;
  // Above this many events (slices, instants, flow ends), the export keeps the analysis window
  // (first to last analysed step) and, if that is still too much, its first part.
  std::size_t max_events = 1'000'000;
  // Called every 65536 trace events written with the count so far (a progress line,
  // cli/src/progress.hpp); may be empty.
  std::function<void(std::uint64_t events)> on_events;
};

struct ChromeExportStats {
  std::size_t events = 0;          // trace events written (metadata events not counted)
  std::size_t candidate_events = 0;  // events the whole profile (or --window) would give
  std::size_t flows = 0;           // flow arrows written
  std::size_t launch_flows = 0, item_flows = 0;
  std::int64_t kept_start_ns = 0, kept_end_ns = 0;  // the kept part, from the time zero
  std::int64_t trace_end_ns = 0;                    // length of the whole profile
  bool trimmed = false;            // the limit made the export drop events
  std::string note;                // what was dropped and how to get it (empty when nothing)
};

// Parses "START:END" in ms from the trace start (either side may be empty: "100:" or ":2.5").
// Throws analysis::UsageError on anything else.
std::pair<std::optional<std::int64_t>, std::optional<std::int64_t>> parse_window_ms(const std::string& text);

ChromeExportStats write_chrome_trace(const format::Profile& profile, std::ostream& out,
                                     const ChromeExportOptions& options = {});

}  // namespace amdahl::chrome
