// The process-wide collector core shared by the NVTX injection and the CUPTI collector:
// the clock, string interning, per-thread record buffers, diagnostics and the part written at
// exit (and after fork, by the child). Implemented in collector_core.cpp, thread_registry.cpp,
// string_table.cpp and recording.cpp (owned by the NVTX collector); the CUPTI side uses what is
// declared here, collector_config.hpp and log.hpp.
#pragma once

#include <cstdint>
#include <string_view>

#include "amdahl/format/records.hpp"

// Exported from libamdahl_collector.so (built with -fvisibility=hidden) so that
// libamdahl_cupti.so can link against these functions.
#ifndef AMDAHL_COLLECTOR_API
#define AMDAHL_COLLECTOR_API __attribute__((visibility("default")))
#endif

namespace amdahl::profiler {

// One clock for everything: CLOCK_MONOTONIC in nanoseconds. CUPTI is given this same clock
// through its timestamp callback.
AMDAHL_COLLECTOR_API std::int64_t now_ns() noexcept;

// OS thread id of the caller (cached per thread; refreshed after fork).
AMDAHL_COLLECTOR_API std::uint64_t current_tid() noexcept;

// Interns a string into the process's string table; thread-safe (takes a lock, so callers on
// hot paths cache the id). Returns format::kNoString for an empty string.
AMDAHL_COLLECTOR_API format::StrId intern(std::string_view s) noexcept;

// Counts a problem into the part's diagnostics (key, e.g. "nvtx.unbalanced_pop").
AMDAHL_COLLECTOR_API void count_diagnostic(std::string_view key, std::uint64_t n = 1) noexcept;

// Whether the collector is recording in this process (AMDAHL_PART_DIR set and usable).
AMDAHL_COLLECTOR_API bool collector_enabled() noexcept;

// Whether the collector found itself loaded into a statically linked program and stayed off
// (elf_probe.hpp; said once on stderr). Not exported.
bool collector_refused_static_host() noexcept;

// A hook run when the part is about to be written (at exit, or on an explicit flush): it
// appends its records (GPU ops, API calls, syncs, event records, devices) to `out`, interning
// names through intern() above (the core fills out.strings from the table after all hooks
// ran). Hooks run with no collector lock held; registration is thread-safe. At most 8 hooks.
// Every write rewrites the whole part (same file name), so a hook appends ALL its records since
// the process started (or since fork, in a child) each time it runs, not only the new ones.
using PartHook = void (*)(format::RecordSet& out) noexcept;
AMDAHL_COLLECTOR_API void register_part_hook(PartHook hook) noexcept;

// Writes this process's part now (idempotent: a second call writes only if new records came).
// Called at exit; the CUPTI side calls it on cudaDeviceReset and on exit().
AMDAHL_COLLECTOR_API void write_part_now() noexcept;

// The GPU trace window (AMDAHL_GPU_STEPS=FROM:TO, step_window.hpp). When set, the CUPTI
// collector starts collection only when the core calls its hook with true (at the start of step
// FROM, a range named `step` on any thread) and stops it at the hook call with false (step TO).
// The core marks both moments in the profile (`gpu_trace_on` / `gpu_trace_off`, domain amdahl,
// payload: the step number), so the analysis keeps to the traced steps.
using GpuWindowHook = void (*)(bool on) noexcept;
AMDAHL_COLLECTOR_API void register_gpu_window_hook(GpuWindowHook hook) noexcept;
// True when AMDAHL_GPU_STEPS asked for a window: CUPTI waits for the hook.
AMDAHL_COLLECTOR_API bool gpu_window_deferred() noexcept;
// Steps started so far in this process (counted only while a window schedule is set).
AMDAHL_COLLECTOR_API std::uint64_t gpu_steps_seen() noexcept;
// Marks a GPU window that the CUPTI side opened or closed by time (a sampled schedule in a
// program without steps): gpu_trace_on / gpu_trace_off, payload -1 - (milliseconds since start).
AMDAHL_COLLECTOR_API void mark_gpu_trace(bool on, std::int64_t payload) noexcept;

}  // namespace amdahl::profiler
