#!/usr/bin/env bash
# Issue 20's must-show in one device call (the device tool allows 600 s a call, and lately one
# machine a session): scripts/device-run.sh `sampled` twice -- BERT fp32 (launch bound) and
# ResNet-50 AMP, each BENCH_ROUNDS (3) interleaved rounds of unprofiled vs `amdahl profile`'s
# defaults, torch.profiler and the fully traced / many-window profiles once (round 1) -- then the
# NVTX pair cost on this host. Everything comes back as $OUT/issue20.tar.gz plus the two logs.
# Knobs: T_BERT (300), T_RN (190), T_NVTX (60) seconds; BERT_STEPS (2000: the default's share cap
# lets windows recur on BERT); RN_ITERS (150); BERT_ONCE, RN_CONFIGS, RN_ONCE (the configs).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
final="${OUT:-$root/out}"
mkdir -p "$final"
export BENCH_ROUNDS="${BENCH_ROUNDS:-3}"
OUT="$final/bert" STEP_TIMEOUT_sampled="${T_BERT:-300}" BENCH_BUDGET_S=$(( ${T_BERT:-300} - 65 )) BENCH_MODELS=bert \
  BERT_STEPS="${BERT_STEPS:-2000}" BENCH_CONFIGS="unprofiled sampled" \
  BENCH_ONCE="${BERT_ONCE-unprofiled:200 torch_profiler:200 traced_all:300 multi:300}" \
  bash scripts/device-run.sh sampled
OUT="$final/rn" STEP_TIMEOUT_sampled="${T_RN:-190}" BENCH_BUDGET_S=$(( ${T_RN:-190} - 50 )) BENCH_MODELS=resnet50 \
  RN_ITERS="${RN_ITERS:-150}" BENCH_CONFIGS="${RN_CONFIGS:-unprofiled sampled torch_profiler}" BENCH_ONCE="${RN_ONCE-traced_all}" \
  STEP_TIMEOUT_nvtx="${T_NVTX:-60}" bash scripts/device-run.sh sampled $([ "${T_NVTX:-60}" = 0 ] || echo nvtx)
tar -C "$final" -czf "$final/issue20.tar.gz" bert rn && rm -rf "$final/bert" "$final/rn"
