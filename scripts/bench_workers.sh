#!/usr/bin/env bash
# GPU-machine run for issue 17: an unmodified torchvision ImageFolder script
# (workloads/python/train_imagefolder.py: JPEGs on disk, bf16 AMP, channels_last, pin_memory)
# with DataLoader num_workers 0, 2, 4 and 8.
#  1. unprofiled, rounds interleaved: the script's own timing of its last steps (steady state);
#  2. under `amdahl profile --torch`, each N once;
#  3. the w4 run under torch.profiler (scripts/kineto_wrap.py) and `amdahl import` of its trace,
#     plus a small trace (resnet18, few steps, 2 workers) for tests/data;
#  4. `whatif --workers N` on the w0 profile, `validate w0 wN`, the reports; then the table
#     (scripts/workers_table.py) of predicted vs measured.
# Env: WB_FLUSH_TEST (0), WB_OMP_TEST (0: 1 adds unprofiled w4/w8 runs with OMP_NUM_THREADS=4),
#      WB_NO_TORCH (0: 1 adds a w4 run under `profile --no-torch`, the GPU-only report),
#      WB_KINETO_RUNS (1), WB_PROFILE_FLAGS ("": `amdahl profile` turns --torch on by itself for a
#      Python command), WB_IMAGES (3840), WB_BATCH (64), WB_STEPS (60), WB_LAST (25), WB_ROUNDS (2),
#      WB_WORKERS ("0 2 4 8"), WB_DATA (/tmp/amdahl-imagefolder-wb).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
OUT="${OUT:-$root/out}"
res="${OUT_RESULTS:-$OUT/results}"
mkdir -p "$res"
build="${AMDAHL_BUILD_DIR:-$root/build}"
amdahl="$build/bin/amdahl"
nimg="${WB_IMAGES:-3840}"; batch="${WB_BATCH:-64}"; steps="${WB_STEPS:-60}"; last="${WB_LAST:-25}"
rounds="${WB_ROUNDS:-2}"; workers=(${WB_WORKERS:-0 2 4 8})
data="${WB_DATA:-/tmp/amdahl-imagefolder-wb}"
script="$root/workloads/python/train_imagefolder.py"
t0=$(date +%s)
el() { echo "$(( $(date +%s) - t0 )) s"; }

[ -x "$amdahl" ] || { echo "bench_workers: $amdahl is not built"; exit 1; }
python3 -c "import torch, torchvision, PIL" || { echo "bench_workers: needs torch, torchvision and PIL"; exit 1; }
python3 -c "import nvtx" 2>/dev/null || echo "bench_workers: WARNING: no nvtx package (no produce/consume links)"
python3 -c "import torch, os; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'cpus', os.cpu_count(), 'affinity', len(os.sched_getaffinity(0)), 'intra-op threads', torch.get_num_threads())"
python3 "$root/scripts/make_imagefolder.py" "$data" "$nimg"
echo "== dataset: $(find "$data" -name '*.jpg' | wc -l) JPEGs, $(du -sh "$data" | cut -f1) ($(el))"

common=("$data" --batch-size "$batch" --steps "$steps" --timed-last "$last" --log-every 20 --amp --channels-last)
# 1. Unprofiled, interleaved rounds.
for r in $(seq 1 "$rounds"); do
  for w in "${workers[@]}"; do
    python3 "$script" "${common[@]}" --workers "$w" > "$res/plain-w$w-r$r.txt" 2>&1
    echo "plain w$w r$r: $(grep -E '^last' "$res/plain-w$w-r$r.txt") ($(el))"
  done
  # The main process's OpenMP pool spins while it waits: does capping it change what workers give?
  if [ "${WB_OMP_TEST:-0}" = 1 ]; then
    for w in 4 8; do
      OMP_NUM_THREADS=4 python3 "$script" "${common[@]}" --workers "$w" > "$res/plain-omp4-w$w-r$r.txt" 2>&1
      echo "plain OMP_NUM_THREADS=4 w$w r$r: $(grep -E '^last' "$res/plain-omp4-w$w-r$r.txt") ($(el))"
    done
  fi
done
# 2. Profiled.
for w in "${workers[@]}"; do
  "$amdahl" profile ${WB_PROFILE_FLAGS:-} --force -o "$res/wb-w$w.amdahl" -- python3 "$script" "${common[@]}" --workers "$w" \
    > "$res/profiled-w$w.txt" 2> "$res/profile-w$w.log"
  echo "profiled w$w: exit $? $(grep -E '^last' "$res/profiled-w$w.txt") ($(el))"
  "$amdahl" report "$res/wb-w$w.amdahl" > "$res/report-w$w.txt" 2>&1
  "$amdahl" report "$res/wb-w$w.amdahl" --force --format json -o "$res/report-w$w.json" 2>/dev/null
done
cat "$res/report-w0.txt" "$res/report-w4.txt"
if [ "${WB_NO_TORCH:-0}" = 1 ]; then
  "$amdahl" profile --no-torch --force -o "$res/wb-notorch-w4.amdahl" -- python3 "$script" "${common[@]}" --workers 4 \
    > "$res/profiled-notorch-w4.txt" 2> "$res/profile-notorch-w4.log"
  echo "profiled --no-torch w4: exit $? $(grep -E '^last' "$res/profiled-notorch-w4.txt") ($(el))"
  "$amdahl" report "$res/wb-notorch-w4.amdahl" > "$res/report-notorch-w4.txt" 2>&1
  cat "$res/report-notorch-w4.txt"
fi
# 4. What-ifs and validation from the w0 profile.
for w in "${workers[@]}"; do
  [ "$w" = 0 ] && continue
  "$amdahl" whatif "$res/wb-w0.amdahl" --workers "$w" > "$res/whatif-w$w.txt" 2>&1
  "$amdahl" whatif "$res/wb-w0.amdahl" --workers "$w" --format json > "$res/whatif-w$w.json" 2>/dev/null
  "$amdahl" validate "$res/wb-w0.amdahl" "$res/wb-w$w.amdahl" > "$res/validate-w$w.txt" 2>&1
  "$amdahl" validate "$res/wb-w0.amdahl" "$res/wb-w$w.amdahl" --format json > "$res/validate-w$w.json" 2>/dev/null
done
cat "$res/whatif-w4.txt" "$res/validate-w4.txt"
# 3. torch.profiler: the w4 run, and a small trace for the tests.
for k in $(seq 1 "${WB_KINETO_RUNS:-1}"); do
  sfx=""; [ "$k" -gt 1 ] && sfx="-k$k"
  python3 "$root/scripts/kineto_wrap.py" "$res/kineto-w4$sfx.json.gz" "$script" "${common[@]}" --workers 4 \
    > "$res/kineto-w4$sfx.txt" 2>&1
  echo "kineto w4$sfx: exit $? $(grep -E '^last' "$res/kineto-w4$sfx.txt") $(du -h "$res/kineto-w4$sfx.json.gz" | cut -f1) ($(el))"
  "$amdahl" import "$res/kineto-w4$sfx.json.gz" -o "$res/kineto-w4$sfx.amdahl" --force > "$res/import-w4$sfx.log" 2>&1
  "$amdahl" report "$res/kineto-w4$sfx.amdahl" > "$res/kineto-report-w4$sfx.txt" 2>&1
  "$amdahl" report "$res/kineto-w4$sfx.amdahl" --force --format json -o "$res/kineto-report-w4$sfx.json" 2>/dev/null
  cat "$res/import-w4$sfx.log" "$res/kineto-report-w4$sfx.txt"
done
[ "${WB_SMALL_KINETO:-1}" = 1 ] && python3 "$root/scripts/kineto_wrap.py" "$res/kineto-small-w2.json.gz" "$script" "$data" --batch-size 16 --steps 8 \
  --workers 2 --arch resnet18 --amp --channels-last > "$res/kineto-small.txt" 2>&1
echo "kineto small: exit $? $(du -h "$res/kineto-small-w2.json.gz" 2>/dev/null | cut -f1)"
# WB_FLUSH_TEST=1: the w0 run profiled again without the collector's background flusher
# (AMDAHL_FLUSH_MS=0), to see whether the flusher slows the inline loading.
if [ "${WB_FLUSH_TEST:-0}" = 1 ]; then
  AMDAHL_FLUSH_MS=0 "$amdahl" profile --torch --force -o "$res/wb-w0-noflush.amdahl" -- python3 "$script" "${common[@]}" \
    --workers 0 > "$res/profiled-w0-noflush.txt" 2>/dev/null
  echo "profiled w0 without the flusher: $(grep -E '^last' "$res/profiled-w0-noflush.txt") ($(el))"
fi
python3 "$root/scripts/workers_table.py" "$res" "${workers[@]}" | tee "$res/workers-table.md"
# Keep the transfer small: the large trace is dropped when over 12 MB (its import stays).
for f in "$res"/kineto-w4*.json.gz; do
  [ "$(stat -c %s "$f" 2>/dev/null || echo 0)" -gt 12000000 ] && rm -f "$f"
done
echo "== bench_workers done in $(el)"
