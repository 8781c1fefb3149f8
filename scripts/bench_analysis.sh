#!/usr/bin/env bash
# Analysis speed (issue 6, "Fast"): generates a synthetic profile of 10 million events
# (amdahl_gen_profile: a driving thread, 3 loader threads, ranges, marks, CUDA API calls and GPU
# ops) and measures `amdahl report` and one `amdahl whatif` on one core (taskset -c 0) with
# /usr/bin/time -v: wall time, CPU time (user + system: on a shared machine the wall time also
# counts other people's work) and maximum resident set size. Goal: each < 10 s and < 2 GB.
# `amdahl whatif` prints the stage breakdown too, so it alone is "the report plus one what-if".
# Usage: scripts/bench_analysis.sh [EVENTS]   (build dir: $AMDAHL_BUILD_DIR or build/)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${AMDAHL_BUILD_DIR:-$root/build}"
events="${1:-10000000}"
work="${TMPDIR:-/tmp}/amdahl_bench_analysis"
mkdir -p "$work"
profile="$work/big_${events}.amdahl"

for bin in amdahl amdahl_gen_profile; do
  [ -x "$build/bin/$bin" ] || { echo "bench_analysis: $build/bin/$bin is not built" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench_analysis: /usr/bin/time is missing (apt-get install time)" >&2; exit 1; }

if [ ! -f "$profile" ]; then
  echo "generating $profile ..."
  "$build/bin/amdahl_gen_profile" "$profile" "$events"
fi
ls -l "$profile"

measure() {  # label, command...
  local label="$1"; shift
  local log="$work/time_${label}.log"
  taskset -c 0 /usr/bin/time -v "$@" > "$work/out_${label}.txt" 2> "$log"
  local wall cpu rss
  wall=$(grep "Elapsed (wall clock)" "$log" | awk '{print $NF}')
  cpu=$(grep -E "(User|System) time" "$log" | awk '{s += $NF} END {printf "%.2f", s}')
  rss=$(grep "Maximum resident set size" "$log" | awk '{print $NF}')
  printf '%-8s wall %-10s cpu %6s s   max RSS %8.1f MB   (%s)\n' "$label" "$wall" "$cpu" "$(echo "$rss / 1024" | bc -l)" "$*"
}

echo "host: $(hostname), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
measure report "$build/bin/amdahl" report "$profile"
measure whatif "$build/bin/amdahl" whatif "$profile" --speedup gpu_compute=2
echo "outputs and /usr/bin/time logs: $work"
