#!/usr/bin/env bash
# What costs on a launch-bound model (issue 20, item 2): the small BERT of
# workloads/python/train_bert.py (fp32, batch 32, seq 128) unprofiled and under `amdahl profile`
# with parts of the collector switched off, interleaved in rounds within one call.
# Usage (GPU host, build first or carry build/): scripts/bench_bert_cost.sh
# Env: BC_ROUNDS (2), BC_ABBA (1: every other round runs the configs in reverse order), BC_STEPS (300), BC_PACE (100: the program's ms/step per block of that many
# steps, to see where in the run a cost lands), BC_CONFIGS (comma list, default all below), OUT (profiles kept
# there when set). Also: no-prefault (AMDAHL_PREFAULT=0), no-flush (AMDAHL_FLUSH_MS=0: no flusher
# thread, no clock re-check), injected-only (no CUPTI, no hooks: the NVTX collector alone, which
# still records what the program and its libraries emit, e.g. CUB's ranges).
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
A="${AMDAHL_BUILD_DIR:-$root/build}/bin/amdahl"
if ls "$root"/.whl/*.whl >/dev/null 2>&1 && ! python3 -c "import nvtx" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/bc-site "$root"/.whl/*.whl && export PYTHONPATH=/tmp/bc-site
fi
# What each profile says of its own windows and CUPTI's diagnostics.
selfcost() { "$A" report --format json /tmp/bc.amdahl 2>/dev/null | python3 "$root/scripts/profile_self_cost.py" --diagnostics; }
# The host steal time (the CPU a VM loses to its neighbours) over a run, in % of all CPU time.
cpu_ticks() { awk '/^cpu /{t=0; for (i=2;i<=NF;i++) t+=$i; print $9, t}' /proc/stat; }
S=(python3 "$root/workloads/python/train_bert.py" --precision fp32 --steps "${BC_STEPS:-300}" --no-sync-check --pace-every "${BC_PACE:-100}")
prof() { "$A" profile -o /tmp/bc.amdahl --force "$@" -- "${S[@]}"; }
IFS=, read -r -a configs <<< "${BC_CONFIGS:-plain,default,no-torch,hooks-only,no-module-forward,no-optimizer,gpu-api-none,no-prefault,no-flush,no-range-cpu,injected-only,torch.profiler}"
results=()
for r in $(seq "${BC_ROUNDS:-2}"); do
  order=("${configs[@]}")
  if [ "${BC_ABBA:-1}" = 1 ] && [ $((r % 2)) = 0 ]; then  # ABBA: every other round in reverse, so a drift within a round cancels
    order=(); for ((i = ${#configs[@]} - 1; i >= 0; i--)); do order+=("${configs[i]}"); done
  fi
  for c in "${order[@]}"; do
    read -r st0 tt0 < <(cpu_ticks)
    rm -f /tmp/bc.amdahl
    case "$c" in
      plain) line=$("${S[@]}" 2>/dev/null) ;;
      default) line=$(prof 2>/dev/null) ;;
      no-torch) line=$(prof --no-torch 2>/dev/null) ;;
      hooks-only) line=$(AMDAHL_CUPTI=0 prof 2>/dev/null) ;;
      no-module-forward) line=$(AMDAHL_TORCH_SKIP=module_forward prof 2>/dev/null) ;;
      no-optimizer) line=$(AMDAHL_TORCH_SKIP=optimizer_step,optimizer_zero_grad,grad_scaler_step,tensor_backward,autograd_backward prof 2>/dev/null) ;;
      gpu-api-none) line=$(prof --gpu-api none 2>/dev/null) ;;
      no-prefault) line=$(AMDAHL_PREFAULT=0 prof 2>/dev/null) ;;
      no-flush) line=$(AMDAHL_FLUSH_MS=0 prof 2>/dev/null) ;;
      detached) line=$(prof --gpu-sample 10/1000000@20 2>/dev/null) ;;     # start-up window only, then detached
      idle-attached) line=$(prof --gpu-steps 1000000:1000001 2>/dev/null) ;;  # CUPTI attached, no window
      no-range-cpu) line=$(AMDAHL_RANGE_CPU=0 prof 2>/dev/null) ;;
      injected-only) line=$(AMDAHL_CUPTI=0 prof --no-torch 2>/dev/null) ;;
      torch.profiler) line=$(python3 "$root/scripts/kineto_wrap.py" /tmp/bc-kineto.json.gz "$root/workloads/python/train_bert.py" --precision fp32 --steps "${BC_STEPS:-300}" --no-sync-check --pace-every "${BC_PACE:-100}" 2>/dev/null) ;;
      *) echo "unknown config $c"; continue ;;
    esac
    read -r st1 tt1 < <(cpu_ticks)
    pace=$(echo "$line" | sed -n 's/.*pace_ms_per_step every [0-9]* steps: //p' | head -1)
    # The fastest block of BC_PACE steps: a host that is at times slower (steal, neighbours)
    # only makes blocks slower, so the minimum is the run's pace without that noise.
    res="r$r $c: $(echo "$line" | grep -o 'ms_per_step=[0-9.]*' | head -1) $(echo "$line" | grep -o 'median10_ms=[0-9.]*' | head -1) min_block_ms=$(echo "$pace" | tr ' ' '\n' | grep . | sort -g | head -1)"
    echo "$res steal=$(awk -v a=$((st1 - st0)) -v b=$((tt1 - tt0)) 'BEGIN{printf "%.1f%%", (b > 0 ? 100 * a / b : 0)}') $([ -f /tmp/bc.amdahl ] && selfcost)"
    results+=("$res")
    echo "   pace: $pace"
  done
done
# Each config against the plain run of its own round (the host drifts between rounds: pairs,
# not pooled means), by the mean ms/step, the median of 10-step blocks and the fastest block
# of BC_PACE steps (the pace between windows, without the host's slow stretches); then the median
# and the mean of those ratios over the rounds.
printf '%s\n' "${results[@]}" | python3 -c '
import re, statistics as st, sys
runs = {}
for l in sys.stdin:
    m = re.match(r"r(\d+) (\S+): ms_per_step=([\d.]+) median10_ms=([\d.]+) min_block_ms=([\d.]*)", l)
    if m: runs[(int(m[1]), m[2])] = (float(m[3]), float(m[4]), float(m[5]) if m[5] else float("nan"))
rounds = sorted({r for r, _ in runs})
for c in sorted({c for _, c in runs} - {"plain"}):
    for k, what in ((0, "mean"), (1, "median10"), (2, "minblock")):
        x = [runs[(r, c)][k] / runs[(r, "plain")][k] - 1 for r in rounds if (r, c) in runs and (r, "plain") in runs]
        x = [v for v in x if v == v]  # no pace printed: no minblock
        if x:
            print("%-18s vs plain by %-8s: %s -> median %+.1f%%, mean %+.1f%%" % (c, what,
                  " ".join("%+.1f%%" % (100 * v) for v in x), 100 * st.median(x), 100 * st.mean(x)))
' 2>/dev/null
