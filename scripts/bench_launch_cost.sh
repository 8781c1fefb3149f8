#!/usr/bin/env bash
# What a profiled launch-bound program pays per CUDA launch, by CUPTI state (issue 20): the
# loop of scripts/launch_cost.py (tiny ops inside `step` ranges, no model code) unprofiled and
# under `amdahl profile` with CUPTI off, attached but idle, detached after one window, sampled
# (the default) and tracing everything, interleaved in rounds within one call. The figure to
# read is min_block_ms (the fastest block of 100 steps; robust to a noisy host), then the mean.
# Usage (GPU host, build first or carry build/): scripts/bench_launch_cost.sh
# Env: LC_ROUNDS (4), LC_STEPS (2000), LC_OPS (300), LC_CONFIGS (comma list, default all below).
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
A="${AMDAHL_BUILD_DIR:-$root/build}/bin/amdahl"
S=(python3 "$root/scripts/launch_cost.py" --steps "${LC_STEPS:-2000}" --ops "${LC_OPS:-300}" --pace)
prof() { "$A" profile -o /tmp/lc.amdahl --force "$@" -- "${S[@]}"; }
diag() {  # the profile's own figure for its windows' cost and its CUPTI window counters
  "$A" report --format json /tmp/lc.amdahl 2>/dev/null | python3 "$root/scripts/profile_self_cost.py" --diagnostics
}
IFS=, read -r -a configs <<< "${LC_CONFIGS:-plain,cupti-off,idle-attached,detached,sampled,traced-all}"
for r in $(seq "${LC_ROUNDS:-4}"); do
  for c in "${configs[@]}"; do
    d=""
    case "$c" in
      plain) line=$("${S[@]}" 2>/dev/null) ;;
      cupti-off) line=$(AMDAHL_CUPTI=0 prof 2>/dev/null) ;;
      idle-attached) line=$(prof --gpu-steps 100000:100001 2>/dev/null); d=$(diag) ;;   # device records only, never a window
      detached) line=$(prof --gpu-sample 10/1000000@20 2>/dev/null); d=$(diag) ;;       # start-up window to step 20, then detached
      sampled) line=$(prof 2>/dev/null); d=$(diag) ;;
      traced-all) line=$(prof --gpu-steps all 2>/dev/null) ;;
      *) echo "unknown config $c"; continue ;;
    esac
    echo "r$r $c: $(echo "$line" | grep -o 'ms_per_step=[0-9.]* median_block_ms=[0-9.]* min_block_ms=[0-9.]*' | head -1) $d"
    echo "   pace: $(echo "$line" | sed -n 's/^launch_cost: pace //p' | head -1)"
  done
done
