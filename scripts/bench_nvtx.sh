#!/usr/bin/env bash
# Measures the NVTX collector's cost (issue 20).
#  1. Pair cost: build/bin/bench_nvtx_pair without the collector and with it recording:
#     nvtxRangePushA/Pop ("default") and nvtxDomainRangePushEx/Pop with a registered string in
#     domain `amdahl` ("amdahl_registered"; with AMDAHL_RANGE_CPU=0, and with the per-range CPU
#     times that domain `amdahl` gets by default: two CPU-clock system calls at push and at pop), plus the cost of one clock_gettime(CLOCK_MONOTONIC)
#     and one rdtsc. Best of R runs of N pairs.
#  2. tests/nvtx_bench (PushA, and PushEx in each of DOMAINS) without the collector, injected but
#     disabled, and recording (the older table).
#  3. Stress: STRESS_N pairs (default 50 M) of nvtxRangePushA/Pop under `amdahl profile`, the
#     program under /usr/bin/time -v: wall time, program-only time (the loop; main), exit delay
#     (wall minus main), peak RSS, ranges kept / dropped / spilled, profile size. Set STRESS_N=0
#     to skip. Extra collector settings pass through (AMDAHL_MEMORY_BUDGET_MB, AMDAHL_ON_FULL,
#     AMDAHL_CLOCK).
# BASE_BUILD=<other build folder> runs 1 and 3 with that build's collector and amdahl as well
# ("before"), on the same machine in the same call.
# Usage: scripts/bench_nvtx.sh [N] [R] [DOMAINS]   (build first: scripts/build.sh; AMDAHL_BUILD_DIR honoured)
# Needs no compiler: every binary comes from the build folder.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${AMDAHL_BUILD_DIR:-$root/build}"
n="${1:-10000000}"
reps="${2:-3}"
domains="${3:-}"
stress_n="${STRESS_N:-50000000}"
pair="$build/bin/bench_nvtx_pair"
bench="$build/tests/nvtx_bench"
for f in "$pair" "$build/lib/libamdahl_collector.so" "$build/bin/amdahl"; do
  [ -e "$f" ] || { echo "missing $f (build first: scripts/build.sh)" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
parts="$work/parts"
mkdir -p "$parts"

builds=("$build")
[ -n "${BASE_BUILD:-}" ] && builds=("$BASE_BUILD" "$build")

# best_of PATTERN CMD...: the lowest number PATTERN (sed) pulls out of CMD's output over $reps runs.
best_of() {
  local pat="$1"; shift
  local b=""
  for _ in $(seq "$reps"); do
    local v
    v="$("$@" | sed -n "$pat")"
    rm -rf "${parts:?}"/* "${parts:?}"/.amdahl-spill-* 2>/dev/null || true
    [ -n "$v" ] || continue
    if [ -z "$b" ] || awk -v a="$v" -v b="$b" 'BEGIN{exit !(a<b)}'; then b="$v"; fi
  done
  echo "${b:-?}"
}

echo "nvtx cost ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'))"
echo "kernel clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo '?');" \
     "cpuinfo TSC flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E '^(constant_tsc|nonstop_tsc|tsc_known_freq|tsc_reliable)$' | tr '\n' ' ')"
clock_line="$(AMDAHL_LOG_LEVEL=info NVTX_INJECTION64_PATH="$build/lib/libamdahl_collector.so" AMDAHL_PART_DIR="$parts" "$pair" 1000 2>&1 | grep -o 'collector: clock: .*' | head -1 || true)"
echo "collector ${clock_line:-clock: ? (no log line)}; transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo '?')"
rm -rf "${parts:?}"/* 2>/dev/null || true
echo "1. pair cost, $n pairs, best of $reps (bench_nvtx_pair)"
echo "  clock_gettime(CLOCK_MONOTONIC): $(best_of 's/^clock: \([0-9.]*\) ns\/call.*/\1/p' "$pair" "$n") ns/call"
echo "  rdtsc:                          $(best_of 's/^rdtsc: \([0-9.]*\) ns\/call.*/\1/p' "$pair" "$n") ns/call"
echo "  no collector: PushA $(best_of 's/^default: \([0-9.]*\) ns\/pair/\1/p' env -u NVTX_INJECTION64_PATH "$pair" "$n") ns/pair," \
     "registered $(best_of 's/^amdahl_registered: \([0-9.]*\) ns\/pair/\1/p' env -u NVTX_INJECTION64_PATH "$pair" "$n") ns/pair"
for b in "${builds[@]}"; do
  lib="$b/lib/libamdahl_collector.so"
  rec=(env NVTX_INJECTION64_PATH="$lib" AMDAHL_PART_DIR="$parts" AMDAHL_LOG_LEVEL=error)
  echo "  collector $lib: PushA $(best_of 's/^default: \([0-9.]*\) ns\/pair/\1/p' "${rec[@]}" "$pair" "$n") ns/pair," \
       "registered (domain amdahl, AMDAHL_RANGE_CPU=0) $(best_of 's/^amdahl_registered: \([0-9.]*\) ns\/pair/\1/p' "${rec[@]}" AMDAHL_RANGE_CPU=0 "$pair" "$n") ns/pair," \
       "registered with the range CPU times (default) $(best_of 's/^amdahl_registered: \([0-9.]*\) ns\/pair/\1/p' "${rec[@]}" "$pair" "$n") ns/pair"
  # The look-ahead page faulting off and on, interleaved run by run (collector.md).
  off_a=(); on_a=(); off_r=(); on_r=()
  for _ in $(seq "$reps"); do
    for pf in 0 1; do
      o="$(env "${rec[@]}" AMDAHL_RANGE_CPU=0 AMDAHL_PREFAULT="$pf" "$pair" "$n")"
      rm -rf "${parts:?}"/* 2>/dev/null || true
      a="$(sed -n 's/^default: \([0-9.]*\) ns\/pair/\1/p' <<<"$o")"; r="$(sed -n 's/^amdahl_registered: \([0-9.]*\) ns\/pair/\1/p' <<<"$o")"
      if [ "$pf" = 0 ]; then off_a+=("$a"); off_r+=("$r"); else on_a+=("$a"); on_r+=("$r"); fi
    done
  done
  echo "  look-ahead off/on, run by run (AMDAHL_PREFAULT=0/1, AMDAHL_RANGE_CPU=0): PushA off ${off_a[*]} | on ${on_a[*]} ns/pair;" \
       "registered off ${off_r[*]} | on ${on_r[*]} ns/pair"
done

if [ -x "$bench" ]; then
  lib="$build/lib/libamdahl_collector.so"
  echo "2. nvtx_bench (PushA; PushEx per domain), $n pairs, best of $reps"
  p='s/.*: \([0-9.]*\) ns per pair/\1/p'
  echo "  no collector:         $(best_of "$p" env -u NVTX_INJECTION64_PATH -u AMDAHL_PART_DIR "$bench" "$n") ns/pair"
  echo "  collector, disabled:  $(best_of "$p" env -u AMDAHL_PART_DIR AMDAHL_LOG_LEVEL=off NVTX_INJECTION64_PATH="$lib" "$bench" "$n") ns/pair"
  echo "  collector, recording: $(best_of "$p" env NVTX_INJECTION64_PATH="$lib" AMDAHL_PART_DIR="$parts" "$bench" "$n") ns/pair"
  for domain in $domains; do
    echo "  collector, recording, domain $domain (PushEx): $(best_of "$p" env NVTX_INJECTION64_PATH="$lib" AMDAHL_PART_DIR="$parts" "$bench" "$n" "$domain") ns/pair"
  done
fi

[ "$stress_n" -gt 0 ] || exit 0
echo "3. stress: $stress_n PushA/Pop pairs under amdahl profile (budget ${AMDAHL_MEMORY_BUDGET_MB:-default}, on full ${AMDAHL_ON_FULL:-default}, clock ${AMDAHL_CLOCK:-auto})"
t0=$(date +%s%N)
env -u NVTX_INJECTION64_PATH "$pair" stress "$stress_n" > "$work/alone.txt"
t1=$(date +%s%N)
echo "  alone: wall $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", (b-a)/1e9}') s, loop $(sed -n 's/^loop_s: //p' "$work/alone.txt") s"
for b in "${builds[@]}"; do
  prof="$work/stress.amdahl"
  rm -f "$prof"
  t0=$(date +%s%N)
  "$b/bin/amdahl" -q profile -f -o "$prof" -- /usr/bin/time -v -o "$work/time.txt" "$pair" stress "$stress_n" > "$work/out.txt" 2> "$work/err.txt" || {
    echo "  $b: amdahl profile failed:"; tail -5 "$work/err.txt"; continue; }
  t1=$(date +%s%N)
  loop=$(sed -n 's/^loop_s: //p' "$work/out.txt")
  main=$(sed -n 's/^main_s: //p' "$work/out.txt")
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt" | awk -F: '{s=0; for(i=1;i<=NF;i++) s=s*60+$i; print s}')
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
  q() { sqlite3 "$prof" "$1" 2>/dev/null || echo "?"; }
  kept=$(q "select count(*) from ranges")
  diagq() { q "select coalesce(sum(d.count),0) from diagnostics d join strings s on s.id=d.key_id where s.value='$1'"; }
  echo "  $b: program wall $wall s (loop $loop s, main $main s, exit delay $(awk -v w="$wall" -v m="$main" 'BEGIN{printf "%.2f", w-m}') s)," \
       "peak RSS $((rss / 1024)) MB; amdahl profile total $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", (b-a)/1e9}') s;" \
       "ranges kept $kept, dropped $(diagq collector.dropped_ranges), spilled $(diagq collector.spilled_ranges); profile $(( $(stat -c %s "$prof") / 1048576 )) MB"
done
