#!/usr/bin/env bash
# ResNet-50 training throughput, amdahl's cuDNN workload (build/bin/resnet50) side by side with
# PyTorch (scripts/bench_resnet50_torch.py: torchvision, channels_last, cudnn.benchmark), runs
# interleaved per precision, batch 128, synthetic data on the GPU. Builds nothing. Prints a
# markdown table of images/s and the ratio amdahl/PyTorch; also writes it to
# $OUT/resnet50_bench.md when OUT is set.
# Environment: AMDAHL_BUILD_DIR (default build/), PRECISIONS (default "fp32 tf32 fp16 bf16"),
# BATCH (128), WARMUP (20), STEPS (50), PYTHON (python3).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${AMDAHL_BUILD_DIR:-$root/build}/bin/resnet50"
precisions="${PRECISIONS:-fp32 tf32 fp16 bf16}"
batch="${BATCH:-128}"
warmup="${WARMUP:-20}"
steps="${STEPS:-50}"
python="${PYTHON:-python3}"

if [ ! -x "$bin" ]; then
  echo "bench_resnet50: $bin not found (build first: scripts/build.sh)" >&2
  exit 2
fi
have_torch=1
if ! "$python" -c "import torch, torchvision" 2>/dev/null; then
  echo "bench_resnet50: torch/torchvision not importable with $python; PyTorch column is n/a" >&2
  have_torch=0
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1

ips_of() { sed -n 's/.*images_per_sec=\([0-9.]*\).*/\1/p' | tail -1; }

rows=()
for p in $precisions; do
  echo "== $p: amdahl resnet50"
  a_out="$("$bin" --precision "$p" --batch-size "$batch" --warmup-steps "$warmup" --steps "$steps" 2>&1)"
  a_rc=$?
  echo "$a_out"
  a_ips="$(echo "$a_out" | ips_of)"
  [ $a_rc -ne 0 ] || [ -z "$a_ips" ] && a_ips="FAILED(rc=$a_rc)"
  t_ips="n/a"
  if [ $have_torch -eq 1 ]; then
    echo "== $p: PyTorch"
    t_out="$("$python" "$root/scripts/bench_resnet50_torch.py" --precision "$p" --batch-size "$batch" \
      --warmup-steps "$warmup" --steps "$steps" 2>&1)"
    t_rc=$?
    echo "$t_out" | tail -n 3
    t_ips="$(echo "$t_out" | ips_of)"
    [ $t_rc -ne 0 ] || [ -z "$t_ips" ] && t_ips="FAILED(rc=$t_rc)"
  fi
  ratio="n/a"
  if [[ "$a_ips" =~ ^[0-9.]+$ && "$t_ips" =~ ^[0-9.]+$ ]]; then
    ratio="$(awk -v a="$a_ips" -v t="$t_ips" 'BEGIN { printf "%.2f", a / t }')"
  fi
  rows+=("| $p | $batch | $a_ips | $t_ips | $ratio |")
done

table="$(
  echo "### ResNet-50 training throughput (images/s, batch $batch, $warmup warm-up + $steps timed steps)"
  echo
  echo "| precision | batch | amdahl resnet50 (cuDNN) | PyTorch (channels_last, cudnn.benchmark) | amdahl / PyTorch |"
  echo "|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
)"
echo
echo "$table"
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  echo "$table" > "$OUT/resnet50_bench.md"
fi
