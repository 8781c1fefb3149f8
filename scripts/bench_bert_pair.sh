#!/usr/bin/env bash
# The collector's cost on a launch-bound model, measured in pairs that run at the same time
# (issue 20): on a host with two GPUs, the unprofiled program on one GPU and the same program
# under `amdahl profile` (the defaults) on the other, started together, so that whatever the
# host does meanwhile (steal time, neighbours, clock changes) lands on both runs. The GPUs are
# swapped every round, so a difference between the two cards cancels over an even number of
# rounds. A/A rounds (unprofiled on both GPUs) first give the pairing's own noise floor.
#
# Why: the lent single-GPU hosts moved 12-35% between runs of one call (docs/benchmarks.md,
# "Where BERT's +7.5% went"), so sequential rounds cannot resolve a 3% cost; runs side by side
# share the host's state.
#
# On a host with one GPU both runs share it (BP_GPUS="0 0", chosen by itself there): each step is
# then ~15-25% slower than alone (docs/benchmarks.md, "BERT's cost in pairs"), but the host's state
# still lands on both runs, and the A/A rounds say what the sharing adds to the noise.
#
# Usage (build first or carry build/): scripts/bench_bert_pair.sh
# Env: BP_ROUNDS (4 A/B rounds), BP_AA (2 A/A rounds), BP_STEPS (1500), BP_PROFILE_ARGS (extra
# `amdahl profile` options, e.g. "--gpu-steps all"; collector switches such as AMDAHL_CUPTI=0 go
# in the environment, which only the profiled run reads), BP_GPUS ("0 1": the two device indices;
# "0 0" on a one-GPU host),
# BP_PIN (1: each run on its own half of the CPUs, swapped with the GPUs), BP_CMD (the program,
# default workloads/python/train_bert.py fp32; it must print ms_per_step=X), OUT (logs kept).
set -u
root="$(cd "$(dirname "$0")/.." && pwd)"
A="${AMDAHL_BUILD_DIR:-$root/build}/bin/amdahl"
[ -x "$A" ] || { echo "bench_bert_pair: no amdahl at $A (build first)" >&2; exit 2; }
if [ -z "${BP_GPUS:-}" ]; then
  n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  case "$n" in
    0|"") echo "bench_bert_pair: no GPU (nvidia-smi lists none)" >&2; exit 2 ;;
    1) BP_GPUS="0 0"; echo "bench_bert_pair: one GPU: both runs share it" ;;
    *) BP_GPUS="0 1" ;;
  esac
fi
read -r g0 g1 <<< "$BP_GPUS"
if ls "$root"/.whl/*.whl >/dev/null 2>&1 && ! python3 -c "import nvtx" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/bp-site "$root"/.whl/*.whl && export PYTHONPATH=/tmp/bp-site
fi
if [ -n "${BP_CMD:-}" ]; then
  read -r -a S <<< "$BP_CMD"
else
  S=(python3 "$root/workloads/python/train_bert.py" --precision fp32 --steps "${BP_STEPS:-1500}" --no-sync-check --pace-every 100)
fi
read -r -a extra <<< "${BP_PROFILE_ARGS:-}"
work="${OUT:-$(mktemp -d /tmp/bp.XXXXXX)}"
mkdir -p "$work"
ncpu=$(nproc)
half=$((ncpu / 2))
cpus() {  # the CPU list of half $1 (0 or 1)
  if [ "$1" = 0 ]; then echo "0-$((half - 1))"; else echo "$half-$((ncpu - 1))"; fi
}
pin() {  # pin HALF CMD...: the command on that half of the CPUs when BP_PIN=1
  local h=$1; shift
  if [ "${BP_PIN:-1}" = 1 ] && [ "$half" -ge 1 ] && command -v taskset >/dev/null; then taskset -c "$(cpus "$h")" "$@"; else "$@"; fi
}
ms_of() { grep -o 'ms_per_step=[0-9.]*' "$1" | head -1 | cut -d= -f2; }
windows_cost() {  # the profile's own figure for its windows (amdahl report's gpu_sampling)
  "$A" report --format json "$1" 2>/dev/null | python3 "$root/scripts/profile_self_cost.py"
}

# One round: $1 = aa|ab, $2 = round number. Side 0 runs on GPU g0 and CPU half 0 in odd rounds,
# swapped in even rounds. In an A/B round side 0 is unprofiled and side 1 profiled.
results=()
round() {
  local kind=$1 r=$2 ga=$g0 gb=$g1 ha=0 hb=1
  if [ $((r % 2)) = 0 ]; then ga=$g1 gb=$g0 ha=1 hb=0; fi
  local la="$work/$kind$r.a.log" lb="$work/$kind$r.b.log" p="$work/$kind$r.amdahl"
  CUDA_VISIBLE_DEVICES=$ga pin $ha "${S[@]}" > "$la" 2>&1 &
  local pa=$!
  if [ "$kind" = ab ]; then
    CUDA_VISIBLE_DEVICES=$gb pin $hb "$A" profile -q -o "$p" --force "${extra[@]}" -- "${S[@]}" > "$lb" 2>&1 &
  else
    CUDA_VISIBLE_DEVICES=$gb pin $hb "${S[@]}" > "$lb" 2>&1 &
  fi
  local pb=$!
  wait $pa; wait $pb
  local a b
  a=$(ms_of "$la"); b=$(ms_of "$lb")
  if [ -z "$a" ] || [ -z "$b" ]; then
    echo "$kind round $r: a run printed no ms_per_step (logs: $la, $lb)"; tail -n 3 "$la" "$lb"; return
  fi
  local line="$kind r$r: side0 GPU $ga ${a} ms/step, side1 GPU $gb ${b} ms/step"
  [ "$kind" = ab ] && line="$line $(windows_cost "$p")"
  echo "$line"
  results+=("$kind $r $a $b")
}

echo "bench_bert_pair: ${S[*]}; GPUs $g0 $g1; CPUs $ncpu (pinned halves: ${BP_PIN:-1}); profile args: ${extra[*]:-(defaults)}"
for r in $(seq "${BP_AA:-2}"); do round aa "$r"; done
for r in $(seq "${BP_ROUNDS:-4}"); do round ab "$r"; done
# Side 1 against side 0 per round; A/A rounds give the pairing's spread, A/B the cost.
printf '%s\n' "${results[@]}" | python3 -c '
import statistics as st, sys
rows = [l.split() for l in sys.stdin if l.strip()]
for kind, what in (("aa", "A/A (unprofiled on both: the pairing noise)"), ("ab", "A/B (profiled side against unprofiled)")):
    costs = [(int(r), float(b) / float(a) - 1) for k, r, a, b in rows if k == kind]
    x = [c for _, c in costs]
    if not x:
        continue
    line = "%s: %s -> mean %+.2f%%" % (what, " ".join("%+.1f%%" % (100 * v) for v in x), 100 * st.mean(x))
    if len(x) > 1:
        line += ", median %+.2f%%, standard error %.2f%%" % (100 * st.median(x), 100 * st.stdev(x) / len(x) ** 0.5)
    print(line)
    # Side 1 runs on CPU half 1 (and GPU g1) in odd rounds, half 0 in even ones: a difference
    # between the halves shows here, and cancels in the mean over an even number of rounds.
    odd = [c for r, c in costs if r % 2 == 1]
    even = [c for r, c in costs if r % 2 == 0]
    if odd and even:
        print("  side 1 on half 1 (odd rounds): mean %+.2f%%; on half 0 (even rounds): mean %+.2f%%"
              % (100 * st.mean(odd), 100 * st.mean(even)))
'
