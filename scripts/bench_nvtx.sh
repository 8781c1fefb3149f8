#!/usr/bin/env bash
# Measures the NVTX collector's push/pop cost: runs tests/nvtx_bench (N nvtxRangePushA /
# nvtxRangePop pairs, default 10M) without the collector, with it injected but disabled (no
# AMDAHL_PART_DIR), and with it recording. Prints ns per pair for each, best of R runs.
# With DOMAINS (e.g. "other amdahl"), also the recording cost of nvtxDomainRangePushEx/Pop pairs
# in each of those domains (domain `amdahl` push/pop ranges read the CPU clocks too; see
# docs/collector.md, Cost).
# Usage: scripts/bench_nvtx.sh [N] [R] [DOMAINS]   (build first: scripts/build.sh; AMDAHL_BUILD_DIR honoured)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${AMDAHL_BUILD_DIR:-$root/build}"
n="${1:-10000000}"
reps="${2:-3}"
domains="${3:-}"
bench="$build/tests/nvtx_bench"
lib="$build/lib/libamdahl_collector.so"
for f in "$bench" "$lib"; do
  [ -e "$f" ] || { echo "missing $f (build first: scripts/build.sh)" >&2; exit 1; }
done
parts="$(mktemp -d)"
trap 'rm -rf "$parts"' EXIT

best() {  # best (lowest) ns per pair over $reps runs of: env ... nvtx_bench N [$domain]
  local b=""
  for _ in $(seq "$reps"); do
    local v
    v="$("$@" "$bench" "$n" ${domain:+"$domain"} | sed -n 's/.*: \([0-9.]*\) ns per pair/\1/p')"
    rm -f "$parts"/*
    if [ -z "$b" ] || awk -v a="$v" -v b="$b" 'BEGIN{exit !(a<b)}'; then b="$v"; fi
  done
  echo "$b"
}

domain=""
echo "nvtx push/pop cost, $n pairs, best of $reps ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg))"
echo "  no collector:        $(best env -u NVTX_INJECTION64_PATH -u AMDAHL_PART_DIR) ns/pair"
echo "  collector, disabled: $(best env -u AMDAHL_PART_DIR AMDAHL_LOG_LEVEL=off NVTX_INJECTION64_PATH="$lib") ns/pair"
echo "  collector, recording: $(best env NVTX_INJECTION64_PATH="$lib" AMDAHL_PART_DIR="$parts") ns/pair"
for domain in $domains; do
  echo "  collector, recording, domain $domain (PushEx): $(best env NVTX_INJECTION64_PATH="$lib" AMDAHL_PART_DIR="$parts") ns/pair"
done
