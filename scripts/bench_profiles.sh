#!/usr/bin/env bash
# On the GPU machine: profiles resnet50 in the pairs the validation table needs (fp32 -> fp16
# on device data; pageable -> pinned host data) and writes each profile with its text and JSON
# report to $OUT (profiles come back to be analysed again off the GPU machine).
# Tunables: RN_BATCH (128), RN_STEPS (30), RN_WARMUP (5), RN_PROFILES ("fp32 fp16 pageable pinned").
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${AMDAHL_BUILD_DIR:-$root/build}/bin"
dest="${OUT:-/tmp/amdahl_profiles}"
mkdir -p "$dest"
batch="${RN_BATCH:-128}"; steps="${RN_STEPS:-30}"; warm="${RN_WARMUP:-5}"
profile() {  # name, command...
  local name="$1"; shift
  echo "== $name: $*"
  local start=$SECONDS
  "$bin/amdahl" profile -o "$dest/$name.amdahl" --force -- "$@" 2>&1 | tail -n 12 | tee "$dest/$name.log"
  "$bin/amdahl" report "$dest/$name.amdahl" | tee "$dest/$name.report.txt"
  "$bin/amdahl" report "$dest/$name.amdahl" --force --format json -o "$dest/$name.report.json" || true
  echo "== $name done in $((SECONDS - start)) s"
}
rn=("$bin/resnet50" --batch-size "$batch" --steps "$steps" --warmup-steps "$warm")
want() { [[ " ${RN_PROFILES:-fp32 fp16 pageable pinned} " == *" $1 "* ]]; }
want fp32 && profile resnet50_fp32 "${rn[@]}" --precision fp32
want fp16 && profile resnet50_fp16 "${rn[@]}" --precision fp16
want pageable && profile resnet50_fp16_host_pageable "${rn[@]}" --precision fp16 --data host
want pinned && profile resnet50_fp16_host_pinned "${rn[@]}" --precision fp16 --data host --pinned
for pair in "resnet50_fp32 resnet50_fp16" "resnet50_fp16_host_pageable resnet50_fp16_host_pinned"; do
  set -- $pair
  echo "== validate $1 -> $2"
  "$bin/amdahl" validate "$dest/$1.amdahl" "$dest/$2.amdahl" 2>&1 || true
done
