#!/usr/bin/env bash
# Overhead benchmark of the collector, in one run on the GPU machine (issue 3, item 6):
#  1. PyTorch ResNet-50 training (torchvision, channels_last, batch 128, AMP fp16 + bf16,
#     synthetic data on the GPU; scripts/bench_overhead_resnet50.py): unprofiled (A), under
#     `amdahl profile` (B) and under torch.profiler with CPU + CUDA activities (C), interleaved
#     A B C twice so drift shows. Goal: B costs <= 2% throughput.
#  2. One NVTX push/pop pair with and without the collector (scripts/bench_nvtx_pair.cpp).
#     Goal: <= 100 ns.
#  3. One kernel launch (empty kernel, 100k launches) with CUPTI off and on
#     (scripts/bench_launch.cu).
# Writes a markdown table to stdout and, when OUT is set, to $OUT/overhead.md.
# Usage: scripts/bench_overhead.sh   (build first; AMDAHL_BUILD_DIR honoured; ~5 min on an H200)
# Knobs: BENCH_WARMUP (30), BENCH_ITERS (100), BENCH_LAUNCHES (100000), BENCH_NVTX_PAIRS (5000000),
#        BENCH_ROUNDS (2), BENCH_DTYPES (fp16,bf16), BENCH_SKIP_MICRO (1: skip the NVTX and launch parts)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${AMDAHL_BUILD_DIR:-$root/build}"
amdahl="$build/bin/amdahl"
collector="$build/lib/libamdahl_collector.so"
cuda="${CUDA_HOME:-/usr/local/cuda}"
warmup="${BENCH_WARMUP:-30}"
iters="${BENCH_ITERS:-100}"
launches="${BENCH_LAUNCHES:-100000}"
pairs="${BENCH_NVTX_PAIRS:-5000000}"
for f in "$amdahl" "$collector" "$build/lib/libamdahl_cupti.so"; do
  [ -e "$f" ] || { echo "bench_overhead: missing $f (build first: scripts/build.sh)" >&2; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
t0=$(date +%s)
elapsed() { echo "$(( $(date +%s) - t0 )) s"; }
results="$work/results.txt"   # lines: kind<TAB>label<TAB>value-or-json
: > "$results"

# --- helpers ------------------------------------------------------------------------------
echo "== compiling helpers"
g++ -O2 -std=c++17 -I"$cuda/include" "$root/scripts/bench_nvtx_pair.cpp" -o "$work/bench_nvtx_pair" -ldl \
  || echo "bench_overhead: cannot build bench_nvtx_pair" >&2
"$cuda/bin/nvcc" -O2 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90 \
  "$root/scripts/bench_launch.cu" -o "$work/bench_launch" \
  || echo "bench_overhead: cannot build bench_launch" >&2

profiled() {  # profiled NAME CMD... : runs CMD under amdahl profile into $work/NAME.amdahl
  local name="$1"; shift
  "$amdahl" profile -o "$work/$name.amdahl" -- "$@"
  local rc=$?
  rm -f "$work/$name.amdahl"
  return $rc
}

best_of() {  # best_of N PATTERN CMD... : lowest number captured by sed PATTERN over N runs
  local n="$1" pat="$2"; shift 2
  local best="" v
  for _ in $(seq "$n"); do
    v="$("$@" 2>/dev/null | sed -n "$pat" | head -1)"
    [ -z "$v" ] && continue
    if [ -z "$best" ] || awk -v a="$v" -v b="$best" 'BEGIN{exit !(a<b)}'; then best="$v"; fi
  done
  echo "${best:-n/a}"
}

# --- 2. NVTX push/pop ------------------------------------------------------------------------
if [ -x "$work/bench_nvtx_pair" ] && [ "${BENCH_SKIP_MICRO:-0}" != 1 ]; then
  echo "== NVTX push/pop ($(elapsed))"
  for variant in default amdahl_registered; do
    pat="s/^$variant: \([0-9.]*\) ns\/pair/\1/p"
    off=$(best_of 3 "$pat" env -u NVTX_INJECTION64_PATH "$work/bench_nvtx_pair" "$pairs")
    mkdir -p "$work/parts"
    on=$(best_of 3 "$pat" env NVTX_INJECTION64_PATH="$collector" AMDAHL_PART_DIR="$work/parts" \
         AMDAHL_LOG_LEVEL=error "$work/bench_nvtx_pair" "$pairs")
    rm -rf "$work/parts"
    printf 'nvtx\t%s\t%s\t%s\n' "$variant" "$off" "$on" >> "$results"
    echo "  $variant: $off ns/pair without the collector, $on ns/pair with it"
  done
  clk=$(best_of 3 's/^clock: \([0-9.]*\) ns\/call.*/\1/p' "$work/bench_nvtx_pair" 2000000)
  src=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)
  printf 'clock\t%s\t%s\n' "$clk" "$src" >> "$results"
  echo "  clock_gettime(CLOCK_MONOTONIC): $clk ns/call (clocksource $src)"
fi

# --- 3. kernel launch ------------------------------------------------------------------------
if [ -x "$work/bench_launch" ] && [ "${BENCH_SKIP_MICRO:-0}" != 1 ]; then
  echo "== kernel launch, $launches launches ($(elapsed))"
  pat='s/.*(loop), \([0-9.]*\) ns\/launch (loop+sync)/\1/p'
  off=$(best_of 3 "$pat" "$work/bench_launch" "$launches")
  on=$(best_of 2 "$pat" profiled launch "$work/bench_launch" "$launches")
  all=$(best_of 2 "$pat" "$amdahl" profile --gpu-api all -o "$work/launch-all.amdahl" --force -- "$work/bench_launch" "$launches")
  none=$(best_of 2 "$pat" "$amdahl" profile --gpu-api none -o "$work/launch-none.amdahl" --force -- "$work/bench_launch" "$launches")
  nodrv=$(best_of 2 "$pat" env AMDAHL_CUPTI_DRIVER=0 "$amdahl" profile -o "$work/launch-nodrv.amdahl" --force -- \
          "$work/bench_launch" "$launches")
  rm -f "$work"/launch-*.amdahl
  printf 'launch\tall\t%s\t%s\t%s\t%s\t%s\n' "$off" "$on" "$nodrv" "$all" "$none" >> "$results"
  echo "  $off ns/launch CUPTI off, $on ns/launch under amdahl profile (launch APIs), $nodrv without driver-API records, $all with every API call, $none with no API records"
fi

# --- 1. ResNet-50 ----------------------------------------------------------------------------
py=(python3 "$root/scripts/bench_overhead_resnet50.py" --warmup "$warmup" --iters "$iters" --dtypes "${BENCH_DTYPES:-fp16,bf16}")
if python3 -c "import torch, torchvision; assert torch.cuda.is_available()" 2>/dev/null; then
  # Configurations (BENCH_CONFIGS, comma-separated): unprofiled; amdahl (default: API records for
  # launches/copies/syncs only); amdahl-all (--gpu-api all: every CUDA API call, the old default);
  # amdahl-window (--gpu-steps in the warm-up: GPU collection off for the timed loop, which shows
  # what is left outside the window); torch.profiler.
  win="${BENCH_WINDOW:-10:$warmup}"
  IFS=, read -r -a configs <<< "${BENCH_CONFIGS:-unprofiled,amdahl,amdahl-all,amdahl-window,torch.profiler}"
  for round in $(seq "${BENCH_ROUNDS:-2}"); do
    for cfg in "${configs[@]}"; do
      echo "== ResNet-50 round $round: $cfg ($(elapsed))"
      case "$cfg" in
        unprofiled) run=("${py[@]}" --mode plain --label unprofiled) ;;
        amdahl) run=("$amdahl" profile -o "$work/r.amdahl" --force -- "${py[@]}" --mode plain --label amdahl) ;;
        amdahl-all) run=("$amdahl" profile --gpu-api all -o "$work/r.amdahl" --force -- "${py[@]}" --mode plain --label amdahl-all) ;;
        amdahl-window) run=("$amdahl" profile --gpu-steps "$win" -o "$work/r.amdahl" --force -- "${py[@]}" --mode plain --label amdahl-window) ;;
        # A window of 30 steps inside the timed loop (BENCH_WINDOW_MID): its cost spread over the loop.
        amdahl-window-mid) run=("$amdahl" profile --gpu-steps "${BENCH_WINDOW_MID:-$((warmup + 40)):$((warmup + 70))}" -o "$work/r.amdahl" --force -- "${py[@]}" --mode plain --label amdahl-window-mid) ;;
        torch.profiler) run=("${py[@]}" --mode torchprof --label torch.profiler) ;;
        # Diagnosis of what costs: the NVTX collector alone; CUPTI attached but collecting
        # nothing (a window that never opens); the same without the callback subscriber or
        # without the timestamp callback.
        nvtx-only) run=(env AMDAHL_CUPTI=0 "$amdahl" profile -o "$work/r.amdahl" --force -- "${py[@]}" --mode plain --label nvtx-only) ;;
        cupti-idle) run=("$amdahl" profile --gpu-steps 1000000:1000001 -o "$work/r.amdahl" --force -- "${py[@]}" --mode plain --label cupti-idle) ;;
        cupti-idle-nosub) run=(env AMDAHL_CUPTI_SUBSCRIBE=0 "$amdahl" profile --gpu-steps 1000000:1000001 -o "$work/r.amdahl" --force -- "${py[@]}" --mode plain --label cupti-idle-nosub) ;;
        cupti-idle-nots) run=(env AMDAHL_CUPTI_TIMESTAMP=0 "$amdahl" profile --gpu-steps 1000000:1000001 -o "$work/r.amdahl" --force -- "${py[@]}" --mode plain --label cupti-idle-nots) ;;
        amdahl-none) run=("$amdahl" profile --gpu-api none -o "$work/r.amdahl" --force -- "${py[@]}" --mode plain --label amdahl-none) ;;
        *) echo "bench_overhead: unknown configuration $cfg" >&2; continue ;;
      esac
      "${run[@]}" 2>&1 | tee -a "$work/resnet.log" | sed -n "s/^RESULT /resnet\tr$round\t/p" | tee -a "$results"
      if [ -f "$work/r.amdahl" ] && [ -n "${OUT:-}" ] && [ "$round" = 1 ]; then
        "$amdahl" report "$work/r.amdahl" > "$OUT/report-$cfg.txt" 2>&1 || true
        case "$cfg" in amdahl-window*) cp "$work/r.amdahl" "$OUT/$cfg.amdahl" ;; esac
      fi
      rm -f "$work/r.amdahl"
    done
  done
  grep -v '^RESULT' "$work/resnet.log" | grep -i "error\|traceback" | head -5
else
  echo "bench_overhead: PyTorch with CUDA or torchvision not available; ResNet-50 rows skipped" >&2
  printf 'note\tresnet\tPyTorch with CUDA or torchvision not available: ResNet-50 not measured\n' >> "$results"
fi
echo "== done ($(elapsed))"

# --- table -----------------------------------------------------------------------------------
table="$work/overhead.md"
python3 - "$results" > "$table" <<'PY'
import json, sys, statistics, datetime, subprocess
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
try:
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                         capture_output=True, text=True).stdout.strip().splitlines()[0]
except Exception:
    gpu = "unknown GPU"
print(f"## Collector overhead ({datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {gpu})\n")
res = [(r[1], json.loads(r[2])) for r in rows if r[0] == "resnet"]
if res:
    print("### ResNet-50 training throughput (batch 128, channels_last, synthetic data)\n")
    print("| dtype | configuration | round 1 img/s | round 2 img/s | mean img/s | cost vs unprofiled |")
    print("|---|---|---:|---:|---:|---:|")
    for dtype in sorted({j["dtype"] for _, j in res}):
        base = None
        labels = list(dict.fromkeys(j["label"] for _, j in res if j["dtype"] == dtype))
        for label in ["unprofiled"] + [l for l in labels if l != "unprofiled"]:
            vals = {rnd: j["images_per_sec"] for rnd, j in res if j["dtype"] == dtype and j["label"] == label}
            if not vals:
                continue
            mean = statistics.mean(vals.values())
            if label == "unprofiled":
                base = mean
            cost = "" if label == "unprofiled" or not base else f"{(1 - mean / base) * 100:+.2f}%"
            r1, r2 = vals.get("r1", float("nan")), vals.get("r2", float("nan"))
            print(f"| {dtype} | {label} | {r1:.1f} | {r2:.1f} | {mean:.1f} | {cost} |")
    post = [j.get("profiler_postprocess_s") for _, j in res if j["label"] == "torch.profiler"]
    if post:
        print(f"\ntorch.profiler post-processing after the timed loop (not in img/s): "
              f"{', '.join(f'{p:.1f} s' for p in post)}. Cost = 1 - mean/unprofiled mean (positive = slower).")
for r in rows:
    if r[0] == "note":
        print(f"\n{r[2]}")
nv = [r for r in rows if r[0] == "nvtx"]
if nv:
    print("\n### One NVTX push/pop pair\n")
    print("| call | without collector (ns) | with collector, recording (ns) | added (ns) |")
    print("|---|---:|---:|---:|")
    for _, variant, off, on in nv:
        try:
            added = f"{float(on) - float(off):.1f}"
        except ValueError:
            added = "n/a"
        name = "nvtxRangePushA + Pop (default domain)" if variant == "default" else "nvtxDomainRangePushEx (registered, `amdahl`) + Pop"
        print(f"| {name} | {off} | {on} | {added} |")
for r in rows:
    if r[0] == "clock":
        print(f"\nOne clock_gettime(CLOCK_MONOTONIC): {r[1]} ns (clocksource {r[2]}); the collector reads the clock once per push and once per pop.")
la = [r for r in rows if r[0] == "launch"]
if la:
    _, _, off, on, nodrv, allapi, noapi = la[0]
    print("\n### One kernel launch (empty kernel, loop + synchronize, best of runs)\n")
    print("| CUPTI | ns per launch |")
    print("|---|---:|")
    print(f"| off (unprofiled) | {off} |")
    print(f"| on (`amdahl profile`, API records for launches/copies/syncs) | {on} |")
    print(f"| on, driver-API records off (`AMDAHL_CUPTI_DRIVER=0`) | {nodrv} |")
    print(f"| on, every API call recorded (`--gpu-api all`) | {allapi} |")
    print(f"| on, no API records (`--gpu-api none`) | {noapi} |")
PY
cat "$table"
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT" && cp "$table" "$OUT/overhead.md"
fi
