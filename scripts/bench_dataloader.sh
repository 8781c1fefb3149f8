#!/usr/bin/env bash
# On the GPU machine (issue 3, item 7): profiles the annotated PyTorch client
# workloads/python/train_dataloader.py (DataLoader with worker processes) under
# `amdahl profile`, and prints its report: the workers' disk_io and cpu_preprocess, the main
# process's h2d and gpu_compute. Results (profile, reports) go to $OUT.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${AMDAHL_BUILD_DIR:-$root/build}/bin"
dest="${OUT:-/tmp/amdahl_dataloader}"
mkdir -p "$dest"
for w in 4 0; do
  name="train_dataloader_w$w"
  echo "== $name"
  "$bin/amdahl" profile -o "$dest/$name.amdahl" --force -- python3 "$root/workloads/python/train_dataloader.py" \
    --workers "$w" --steps "${DL_STEPS:-40}" 2>&1 | tail -n 8
  "$bin/amdahl" report "$dest/$name.amdahl" | tee "$dest/$name.report.txt"
  "$bin/amdahl" report "$dest/$name.amdahl" --force --format json -o "$dest/$name.report.json" || true
done
