#!/usr/bin/env bash
# Sanitizer runs (issue #8), for CI and by hand:
#   1. AddressSanitizer + UBSan: everything that builds without CUDA (-DAMDAHL_WITH_CUDA=OFF),
#      into build-asan/, then every test except the GPU ones (ctest -LE gpu).
#   2. ThreadSanitizer: the collector and its threading tests (collector records, fork, crash,
#      stress), into build-tsan/.
# Any sanitizer report fails the run (halt_on_error), and so does any failing test.
# Usage: scripts/test-sanitizers.sh [asan|tsan|all]   (default all)
# Env: AMDAHL_ASAN_DIR, AMDAHL_TSAN_DIR (build folders), AMDAHL_SANITIZER_JOBS (parallelism).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
what="${1:-all}"
asan_dir="${AMDAHL_ASAN_DIR:-$root/build-asan}"
tsan_dir="${AMDAHL_TSAN_DIR:-$root/build-tsan}"
jobs="${AMDAHL_SANITIZER_JOBS:-$(nproc)}"
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
# Warnings are enforced (-Werror in CI) by the main build; sanitizer builds make GCC 12 emit
# false -Wmaybe-uninitialized warnings inside libstdc++ (std::regex, std::function), so they
# build without -Werror.
werror=OFF

# The collector installs crash handlers only where the host has none: the sanitizers' own
# SEGV/abort handlers would replace them (and change exit codes the crash tests check), so
# they are off; memory errors are still caught where they happen, before any signal.
# TSan's die_after_fork=0: the collector's flusher thread makes a recording process
# multi-threaded at fork, and a child that records starts its own flusher (TSan otherwise
# refuses new threads after a multi-threaded fork). report_signal_unsafe=0: the crash handler
# writes the part from a fatal-signal handler on purpose (best effort, see docs/reliability.md).
no_signals="handle_segv=0:handle_sigbus=0:handle_abort=0:handle_sigfpe=0:handle_sigill=0"
# detect_leaks=0: LeakSanitizer's check at exit locks ASan's allocator, and a child forked
# while another thread of its parent held that lock (the collector's fork tests do exactly
# this) waits for it forever.
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=0:$no_signals"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:die_after_fork=0:report_signal_unsafe=0:$no_signals"

# -O1 -g1 (the sanitizers' own advice: -O1 keeps reports exact, line tables give file:line):
# measured on the 2-core CI-sized machine, the largest source (analysis/src/restructure.cpp)
# compiles in 46 s under ASan+UBSan against 92 s at RelWithDebInfo's default -O2 -g (-O1 with
# full -g: 71 s). See docs/reliability.md, "CI time".
san_flags="-O1 -g1 -DNDEBUG"
configure() {  # dir sanitizer
  local first=()  # a new build folder: generator, build type, sanitizer
  [ -f "$1/CMakeCache.txt" ] || first=("${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAMDAHL_WITH_CUDA=OFF -DAMDAHL_SANITIZE="$2")
  cmake -S "$root" -B "$1" "${first[@]}" -DAMDAHL_WARNINGS_AS_ERRORS=$werror \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$san_flags" -DCMAKE_C_FLAGS_RELWITHDEBINFO="$san_flags" >/dev/null
}

stamp() { date +%s; }

run_asan() {
  local t0; t0=$(stamp)
  echo "== ASan+UBSan: build ($asan_dir)"
  configure "$asan_dir" address,undefined
  cmake --build "$asan_dir" -j "$jobs"
  local t1; t1=$(stamp)
  echo "== ASan+UBSan: tests (ctest -LE gpu)"
  # The e2e and validation tests check timings against ground truth; under ASan on a busy
  # 2-core machine a late wake-up can move a stage boundary by a millisecond, so a test that
  # fails is run again (up to 3 times). Memory errors fail every time.
  (cd "$asan_dir" && ctest --output-on-failure -j "$jobs" -LE gpu --repeat until-pass:3)
  local t2; t2=$(stamp)
  echo "== ASan+UBSan: build $((t1 - t0)) s, tests $((t2 - t1)) s"
}

tsan_tests='^(test_collector|test_crash|test_stress)$'
run_tsan() {
  local t0; t0=$(stamp)
  echo "== TSan: build collector and its tests ($tsan_dir)"
  configure "$tsan_dir" thread
  local targets=(amdahl_collector nvtx_helper crash_helper test_collector test_crash)
  if grep -q "test_stress" "$tsan_dir/build.ninja" "$tsan_dir/Makefile" 2>/dev/null; then
    targets+=(test_stress stress_helper)
  fi
  cmake --build "$tsan_dir" -j "$jobs" --target "${targets[@]}"
  local t1; t1=$(stamp)
  echo "== TSan: tests ($tsan_tests)"
  (cd "$tsan_dir" && ctest --output-on-failure -j "$jobs" -R "$tsan_tests")
  local t2; t2=$(stamp)
  echo "== TSan: build $((t1 - t0)) s, tests $((t2 - t1)) s"
}

case "$what" in
  asan) run_asan ;;
  tsan) run_tsan ;;
  all) run_asan; run_tsan ;;
  *) echo "usage: $0 [asan|tsan|all]" >&2; exit 1 ;;
esac
echo "== sanitizers: all green"
