#!/usr/bin/env bash
# Collector stress at full size (issue #8): T threads x N push/pop ranges (default 64 x 1M)
# recorded by stress_helper with the collector injected, then the stress test suite
# (tests/stress) at those sizes. Prints the figures docs/reliability.md records: wall time,
# ns per range (all threads), part size, peak RSS, and the test result.
# Usage: scripts/stress.sh [T] [N]   (build first; AMDAHL_BUILD_DIR honoured)
# The full size needs ~3.6 GB of record storage: AMDAHL_MEMORY_BUDGET_MB defaults to 4096 here
# (past the budget ranges are dropped and counted in collector.dropped_ranges), and ~12 GB of
# memory at the part write.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${AMDAHL_BUILD_DIR:-$root/build}"
t="${1:-64}"
n="${2:-1000000}"
export AMDAHL_MEMORY_BUDGET_MB="${AMDAHL_MEMORY_BUDGET_MB:-4096}"
helper="$build/tests/stress_helper"
lib="$build/lib/libamdahl_collector.so"
for f in "$helper" "$lib" "$build/tests/test_stress"; do
  [ -e "$f" ] || { echo "missing $f (build first: scripts/build.sh)" >&2; exit 1; }
done
parts="$(mktemp -d)"
trap 'rm -rf "$parts"' EXIT

echo "collector stress: $t threads x $n ranges ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(free -g | awk '/Mem:/{print $2}') GB, load $(cut -d' ' -f1 /proc/loadavg), budget ${AMDAHL_MEMORY_BUDGET_MB} MB)"
start=$(date +%s.%N)
timing=()
[ -x /usr/bin/time ] && timing=(/usr/bin/time -f "peak RSS %M KB")
NVTX_INJECTION64_PATH="$lib" AMDAHL_PART_DIR="$parts" "${timing[@]}" "$helper" threads "$t" "$n"
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v r="$((t * n))" \
  'BEGIN{printf "  wall %.2f s (recording + part write), %.1f ns per range over all threads\n", e-s, (e-s)*1e9/r}'
echo "  part: $(du -sh "$parts" | cut -f1)"
rm -rf "${parts:?}"/*

echo "stress suite at $t x $n:"
(cd "$build" && AMDAHL_BUILD_DIR="$build" AMDAHL_SOURCE_DIR="$root" AMDAHL_STRESS_THREADS="$t" \
  AMDAHL_STRESS_RANGES="$n" "$build/tests/test_stress")
