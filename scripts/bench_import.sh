#!/usr/bin/env bash
# Time and peak RSS of `amdahl import` of one trace (issue 18, class 11; docs/benchmarks.md).
#   scripts/bench_import.sh TRACE.json[.gz] [AMDAHL_BINARY] [RUNS]
# AMDAHL_BINARY defaults to build/bin/amdahl; each run imports into a temporary profile, which
# is removed. Prints one line per run: wall seconds, user+sys seconds, peak RSS (MiB), and the
# ratio of the peak RSS to the trace file's size. Traces: scripts/make_big_kineto_trace.py.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
trace="${1:?usage: bench_import.sh TRACE.json[.gz] [AMDAHL_BINARY] [RUNS]}"
bin="${2:-$root/build/bin/amdahl}"
runs="${3:-1}"
[ -f "$trace" ] || { echo "bench_import.sh: no trace '$trace'" >&2; exit 1; }
[ -x "$bin" ] || { echo "bench_import.sh: no amdahl binary '$bin'" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_import.sh: needs /usr/bin/time (GNU time)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
size=$(stat -c %s "$trace")
echo "trace: $trace ($((size >> 20)) MiB), binary: $bin"
for ((i = 1; i <= runs; i++)); do
  /usr/bin/time -v "$bin" import "$trace" -o "$tmp/out.amdahl" --force 2>"$tmp/time.txt" >/dev/null || {
    cat "$tmp/time.txt" >&2
    exit 1
  }
  wall=$(grep 'Elapsed (wall clock)' "$tmp/time.txt" | awk '{print $NF}')
  user=$(grep 'User time' "$tmp/time.txt" | awk '{print $NF}')
  sys=$(grep 'System time' "$tmp/time.txt" | awk '{print $NF}')
  rss_kb=$(grep 'Maximum resident set size' "$tmp/time.txt" | awk '{print $NF}')
  awk -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss_kb" -v z="$size" -v i="$i" 'BEGIN {
    n = split(w, p, ":"); secs = 0; for (k = 1; k <= n; ++k) secs = secs * 60 + p[k];
    printf "run %d: wall %.1f s, cpu %.1f s, peak RSS %.0f MiB (%.2fx the file)\n", i, secs, u + s, r / 1024, r * 1024 / z }'
done
