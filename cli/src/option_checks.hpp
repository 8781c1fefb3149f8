// The numbers amdahl's options take, each with its range, as CLI11 check objects: one place
// says what a number may be, the check refuses anything else during parsing (one
// `amdahl: error: --OPTION: ...` line, exit 1), and the range is shown in `--help` (the
// check's description). The commands attach them with `->check(...)`; their callbacks then
// parse values already known to be good.
#pragma once

#include <CLI/CLI.hpp>

namespace amdahl::cli::checks {

// A stage's speed-up factor (--speedup STAGE=K): 0.01 (100 times slower) to 1e6. Beyond 1e6
// the stage's time is below the clock's resolution for any step longer than a millisecond
// (the replay removes a stage with 1e9); below 0.01 a step of 10 ms would take longer than the
// run, and at 1e-11 the replay's times leave the range where doubles add exactly.
inline constexpr double kMinFactor = 0.01;
inline constexpr double kMaxFactor = 1e6;
// An overall speed-up to reach (--target): above 1 (1x or less needs no change) and at most
// 1e6 (no stage's limit comes near it).
inline constexpr double kMaxTarget = 1e6;

// A finite decimal number from lo to hi (both included); NaN, infinities, hexadecimal and
// trailing text are refused. `what` names the unit for the help ("PCT").
CLI::Validator number_in(double lo, double hi, const char* what);
// A whole number from lo to hi (decimal digits only).
CLI::Validator whole_in(long long lo, long long hi);
// --speedup: STAGE=K or STAGE:host=K with K (2, 2x, 0.5) in [kMinFactor, kMaxFactor].
CLI::Validator speedup_request();
// --target: X or Xx with 1 < X <= kMaxTarget.
CLI::Validator target_speedup();
// --warmup: 'auto' or a whole number of steps from 0 to 1e9.
CLI::Validator warmup_steps();
// --workers / --prefetch: a whole number from 1 to 4096.
CLI::Validator worker_count();
// export --window START:END in ms from the trace start, each from 0 to 1e12, END > START.
CLI::Validator export_window();
// profile --gpu-steps all|FROM:TO: whole step numbers, 0 <= FROM < TO < 1e18.
CLI::Validator step_window();
// profile --gpu-sample K/M[@SKIP]: 0 < K < M, whole numbers below 1e18.
CLI::Validator gpu_sample();

}  // namespace amdahl::cli::checks
