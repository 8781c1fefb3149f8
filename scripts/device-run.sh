#!/usr/bin/env bash
# One call on the GPU machine: build (or reuse a carried build), run the `gpu`-labelled tests,
# then the benchmarks named as arguments (default: all), and leave every result under $OUT
# (a summary, the full log and a tarball of reports/profiles: the device tool returns at most
# 8 files). Usage: scripts/device-run.sh [tests] [profiles] [resnet50] [workloads] [overhead] [torch] [kineto] [dataloader] [implicit] [workers] [sampled] [bert_pair] [nvtx]
# Each step runs under a time limit (STEP_TIMEOUT_<name> seconds, default 300); ARGS_<name> are
# the bench script's arguments (nvtx: "2000000 3" and STRESS_N=0 unless set: pair cost only).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
OUT="${OUT:-$root/out}"
mkdir -p "$OUT/results"
export OUT_RESULTS="$OUT/results"
log="$OUT/device-run.log"
exec > >(tee -a "$log") 2>&1
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests profiles resnet50 workloads overhead torch kineto)
want() { local s; for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
t0=$(date +%s)
echo "== device-run $(date -u +%FT%TZ) on $(hostname): ${steps[*]}"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader || true

# Python wheels carried in .whl (the nvtx package) go to a private site dir.
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi

# Build: reuse a carried build/ when it has the binaries, else build here (16 cores). The
# machine has no sqlite3.h: scripts/make-carry.sh puts it into .carry/include.
export AMDAHL_BUILD_DIR="${AMDAHL_BUILD_DIR:-$root/build}"
if [ ! -x "$AMDAHL_BUILD_DIR/bin/amdahl" ]; then
  export AMDAHL_BUILD_DIR="$root/build-device"
  cmake -S . -B "$AMDAHL_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSQLite3_INCLUDE_DIR="$root/.carry/include" -DSQLite3_LIBRARY=/lib/x86_64-linux-gnu/libsqlite3.so.0 \
    && cmake --build "$AMDAHL_BUILD_DIR" -j 16 || { echo "BUILD FAILED"; }
fi
export PATH="$AMDAHL_BUILD_DIR/bin:$PATH"
echo "== build: $AMDAHL_BUILD_DIR ($(( $(date +%s) - t0 )) s)"

summary="$OUT/summary.md"
echo "# device-run $(date -u +%F) $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" > "$summary"

if want tests; then
  echo "== gpu tests"
  if [ -f "$AMDAHL_BUILD_DIR/CTestTestfile.cmake" ]; then
    (cd "$AMDAHL_BUILD_DIR" && timeout "${STEP_TIMEOUT_tests:-300}" ctest -L gpu --output-on-failure --timeout 200) 2>&1 | tee "$OUT_RESULTS/gpu-tests.log"
  else
    # A slim carried build (scripts/make-carry.sh): the gpu test binaries sit in .carry/tests.
    for t in .carry/tests/*; do
      echo "---- $t"
      timeout 200 "$t" 2>&1 | tail -n 40
      echo "---- $t exit ${PIPESTATUS[0]}"
    done 2>&1 | tee "$OUT_RESULTS/gpu-tests.log"
  fi
  grep -E "tests passed|Passed|Failed|Skipped|^---- .* exit|test cases" "$OUT_RESULTS/gpu-tests.log" >> "$summary"
fi
export STRESS_N="${STRESS_N:-0}"
ARGS_nvtx="${ARGS_nvtx:-2000000 3}"
for b in profiles resnet50 workloads overhead torch kineto dataloader implicit workers sampled bert_pair nvtx; do
  if want "$b" && [ -f "scripts/bench_$b.sh" ]; then
    echo "== bench $b ($(( $(date +%s) - t0 )) s)"
    limit_var="STEP_TIMEOUT_$b"
    mkdir -p "$OUT_RESULTS/$b"
    args_var="ARGS_$b"
    # shellcheck disable=SC2086
    OUT="$OUT_RESULTS/$b" OUT_RESULTS="$OUT_RESULTS/$b" timeout "${!limit_var:-300}" bash "scripts/bench_$b.sh" ${!args_var:-} 2>&1 | tee "$OUT_RESULTS/bench-$b.log"
    echo "== bench $b exit ${PIPESTATUS[0]}" | tee -a "$summary"
    tail -n 40 "$OUT_RESULTS/bench-$b.log" >> "$summary"
  fi
done
echo "== done in $(( $(date +%s) - t0 )) s"
# One tarball per result folder (the device tool returns at most 8 files of 16 MiB each).
for d in "$OUT/results"/*/; do
  [ -d "$d" ] && tar -C "$OUT/results" -czf "$OUT/results-$(basename "$d").tar.gz" "$(basename "$d")"
done
(cd "$OUT/results" && find . -maxdepth 1 -type f -print0 | tar -czf "$OUT/results-logs.tar.gz" --null -T -) 2>/dev/null
rm -rf "$OUT/results"
