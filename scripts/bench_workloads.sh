#!/usr/bin/env bash
# On the GPU machine: generates the segmentation dataset (multithreaded; ~200 images of
# 2048x1024 by default, about 1 GB of PNG), then profiles segmentation with 1 and 4 loader
# threads and sentiment, each under `amdahl profile` followed by `amdahl report`. Profiles and
# reports go to $OUT when it is set (else $BENCH_DIR/results). Needs a build with CUDA
# (scripts/build.sh). Tunables (environment): SEG_IMAGES, SEG_WIDTH, SEG_HEIGHT, SEG_STEPS,
# SEG_BATCH, SENT_STEPS, BENCH_DIR.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${AMDAHL_BUILD_DIR:-$root/build}"
bin="$build/bin"
work="${BENCH_DIR:-/tmp/amdahl_bench}"
dest="${OUT:-$work/results}"
images="${SEG_IMAGES:-200}"
width="${SEG_WIDTH:-2048}"
height="${SEG_HEIGHT:-1024}"
seg_steps="${SEG_STEPS:-20}"
seg_batch="${SEG_BATCH:-16}"
sent_steps="${SENT_STEPS:-400}"
mkdir -p "$work" "$dest"
for tool in amdahl segmentation_gen segmentation sentiment; do
  [ -x "$bin/$tool" ] || { echo "bench_workloads: $bin/$tool not built" >&2; exit 2; }
done

data="$work/seg_${width}x${height}_${images}"
if [ ! -f "$data/lbl_$(printf %06d $((images - 1))).png" ]; then
  echo "== generating $images images of ${width}x${height} into $data"
  "$bin/segmentation_gen" --generate "$data" --images "$images" --width "$width" \
    --height "$height" --threads "$(nproc)"
fi
du -sh "$data" || true

profile() {  # name, command...
  local name="$1"; shift
  echo "== $name: $*"
  local start=$SECONDS
  "$bin/amdahl" profile -o "$dest/$name.amdahl" -- "$@" 2>&1 | tee "$dest/$name.log"
  "$bin/amdahl" report "$dest/$name.amdahl" | tee "$dest/$name.report.txt"
  "$bin/amdahl" report "$dest/$name.amdahl" --force --format json -o "$dest/$name.report.json" || true
  echo "== $name done in $((SECONDS - start)) s"
}

profile segmentation_1thread "$bin/segmentation" --data "$data" --batch-size "$seg_batch" \
  --steps "$seg_steps" --warmup-steps 3 --loader-threads 1 --queue-depth 4 --pinned
profile segmentation_4threads "$bin/segmentation" --data "$data" --batch-size "$seg_batch" \
  --steps "$((seg_steps * 2))" --warmup-steps 3 --loader-threads 4 --queue-depth 4 --pinned
profile sentiment "$bin/sentiment" --steps "$sent_steps" --warmup-steps 20 --batch-size 256 \
  --seq-len 128
echo "bench_workloads: results in $dest"
