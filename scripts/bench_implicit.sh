#!/usr/bin/env bash
# GPU-machine run for issue 16: unmodified PyTorch programs, pairs of runs, profiled with
# `amdahl profile --torch` and compared with the programs' own steady-state timing.
#
# Pairs (IMPLICIT_PAIRS, "model:base:improved" words): resnet50 fp32->fp16, resnet50 fp32->tf32
# (workloads/python/train_resnet50.py: torchvision, channels_last, batch 128, no per-step
# synchronize) and bert fp32->amp (workloads/python/train_bert.py: a BERT-mini from a BertConfig,
# batch 32, sequence 128, AdamW; launch bound in fp32). Every configuration runs plain (its own
# ms/step) and under `amdahl profile --torch` (its own ms/step again, and the profile). The plain
# runs of a model come one after the other (a base shared by two pairs sits between its two
# improved runs: fp16, fp32, tf32), then its profiled runs in the same order. Then per run
# `amdahl report` (text, json), per pair `amdahl validate base improved` (text, json) and
# `amdahl whatif base --speedup gpu_compute=K`, K = the measured GPU factor of gpu_compute
# between the two profiles (validate's JSON, stages[gpu_compute].factor). Last, markdown tables
# (scripts/implicit_table.py) in $OUT_RESULTS/bench-implicit.md. A failing run prints an error
# line and reads "failed" in the table; the script goes on.
#
# Usage: scripts/device-run.sh implicit (give the step STEP_TIMEOUT_implicit=540; an estimated
# 4-6 min on an H200), or directly: AMDAHL_BUILD_DIR=build OUT_RESULTS=/tmp/implicit scripts/bench_implicit.sh
# Env: IMPLICIT_PAIRS ("resnet50:fp32:fp16 resnet50:fp32:tf32 bert:fp32:amp"),
#      IMPLICIT_RESNET_STEPS (60), IMPLICIT_RESNET_WARMUP (15), IMPLICIT_RESNET_BATCH (128),
#      IMPLICIT_BERT_STEPS (300), IMPLICIT_BERT_WARMUP (30), IMPLICIT_BERT_BATCH (32),
#      IMPLICIT_RESNET_ARGS / IMPLICIT_BERT_ARGS (more arguments for the scripts, e.g.
#      "--device cpu --image-size 64" for a functional check without a GPU),
#      IMPLICIT_RUN_TIMEOUT (180 s per run), IMPLICIT_RUN_DEADLINE (390: no new run starts after
#      this many seconds; the analysis and the table still come), IMPLICIT_AMDAHL_WARMUP (empty:
#      the analyzer's automatic warm-up; N: --warmup N for report, validate and whatif; "script":
#      the script's own warm-up steps, so that amdahl's window is the script's timed steps; with
#      the automatic warm-up, validate also runs with the scripts' warm-up, a third table),
#      IMPLICIT_SPLIT_PROFILES (1: profiles in ../implicit-profiles-<model>, the default under
#      device-run; 0: in $OUT_RESULTS), IMPLICIT_PYTHON (python3).
# A TERM (device-run's step limit) lets the current run finish, skips the others and still
# writes the table.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root" || exit 1
OUT="${OUT:-$root/out}"
res="${OUT_RESULTS:-$OUT/results}"
mkdir -p "$res"
build="${AMDAHL_BUILD_DIR:-$root/build}"
amdahl="$build/bin/amdahl"
python="${IMPLICIT_PYTHON:-python3}"
pairs="${IMPLICIT_PAIRS:-resnet50:fp32:fp16 resnet50:fp32:tf32 bert:fp32:amp}"
run_timeout="${IMPLICIT_RUN_TIMEOUT:-180}"
# Profiles: under device-run (results/implicit) one folder per model beside it, so that each
# comes back as its own tarball (the device tool returns files of at most 16 MiB); else $res.
split_profiles=0
[ "$(basename "$res")" = implicit ] && [ "$(basename "$(dirname "$res")")" = results ] && split_profiles=1
[ -n "${IMPLICIT_SPLIT_PROFILES:-}" ] && split_profiles="$IMPLICIT_SPLIT_PROFILES"
pdir_of() {  # $1 model -> the folder of its profiles (made)
  local d="$res"; [ "$split_profiles" = 1 ] && d="$(dirname "$res")/implicit-profiles-$1"
  mkdir -p "$d" && echo "$d"
}
deadline="${IMPLICIT_RUN_DEADLINE:-390}"
warm_of() {  # $1 model -> the analyzer's warm-up option in the array `warm`
  warm=()
  case "${IMPLICIT_AMDAHL_WARMUP:-}" in
    "") ;;
    script) if [ "$1" = resnet50 ]; then warm=(--warmup "${IMPLICIT_RESNET_WARMUP:-15}")
            else warm=(--warmup "${IMPLICIT_BERT_WARMUP:-30}"); fi ;;
    *) warm=(--warmup "$IMPLICIT_AMDAHL_WARMUP") ;;
  esac
}
# shellcheck disable=SC2206  # word splitting of the extra arguments is wanted
resnet_cmd=("$python" "$root/workloads/python/train_resnet50.py" --steps "${IMPLICIT_RESNET_STEPS:-60}"
            --warmup-steps "${IMPLICIT_RESNET_WARMUP:-15}" --batch-size "${IMPLICIT_RESNET_BATCH:-128}"
            ${IMPLICIT_RESNET_ARGS:-})
# shellcheck disable=SC2206
bert_cmd=("$python" "$root/workloads/python/train_bert.py" --steps "${IMPLICIT_BERT_STEPS:-300}"
          --warmup-steps "${IMPLICIT_BERT_WARMUP:-30}" --batch-size "${IMPLICIT_BERT_BATCH:-32}"
          ${IMPLICIT_BERT_ARGS:-})
# No network on the GPU machine, and nothing to download: the models are built from configs.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
stopping=0
trap 'stopping=1; echo "bench_implicit: TERM received: the current run finishes, the others are skipped"' TERM

[ -x "$amdahl" ] || { echo "bench_implicit: error: $amdahl is not built"; exit 1; }
"$python" -c "import torch, torchvision, transformers; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'torchvision', torchvision.__version__, 'transformers', transformers.__version__)" 2>&1 | tail -n 1
[ "${PIPESTATUS[0]}" = 0 ] || echo "bench_implicit: error: needs torch, torchvision and transformers (runs will fail)"
"$python" -c "import nvtx" 2>/dev/null \
  || echo "bench_implicit: WARNING: no nvtx package: torch.cuda.nvtx fallback, no produce/consume links"
# `--torch` finds its package next to the binary (docs/torch.md); a slim carried build may lack it.
if [ ! -f "$build/share/amdahl/python/amdahl_torch/__init__.py" ]; then
  echo "bench_implicit: WARNING: $build/share/amdahl/python missing: copying profiler/python there"
  mkdir -p "$build/share/amdahl/python" && cp -r profiler/python/sitecustomize.py profiler/python/amdahl_torch \
    "$build/share/amdahl/python/" || echo "bench_implicit: error: could not copy the amdahl_torch package"
fi

# The runs: per model, its configurations in an order that keeps each pair's plain runs adjacent.
models=(); valid=(); declare -A order=()
for p in $pairs; do
  IFS=: read -r m b i <<< "$p"
  if [ -z "$m" ] || [ -z "$b" ] || [ -z "$i" ]; then echo "bench_implicit: error: bad pair '$p' (model:base:improved)"; continue; fi
  case "$m" in resnet50|bert) ;; *) echo "bench_implicit: error: unknown model '$m' in '$p'"; continue ;; esac
  [ -n "${order[$m]+x}" ] || { models+=("$m"); order[$m]=""; }
  order[$m]+=" $b:$i"; valid+=("$p")
done
configs_of() {  # $1 = model: its configurations, ordered
  local -a bases=() imps=() ordered=(); local w b i x
  for w in ${order[$1]}; do IFS=: read -r b i <<< "$w"; bases+=("$b"); imps+=("$i"); done
  if [ ${#imps[@]} = 2 ] && [ "${bases[0]}" = "${bases[1]}" ]; then
    ordered=("${imps[0]}" "${bases[0]}" "${imps[@]:1}")        # improved, base, improved
  else
    for x in "${!bases[@]}"; do ordered+=("${bases[$x]}" "${imps[$x]}"); done
  fi
  printf '%s\n' "${ordered[@]}" | awk '!seen[$0]++'               # once each, first place kept
}
cmd_of() {  # $1 model, $2 precision -> the command in the array `cmd`
  if [ "$1" = resnet50 ]; then cmd=("${resnet_cmd[@]}" --precision "$2"); else cmd=("${bert_cmd[@]}" --precision "$2"); fi
}
own_line() { grep -E '^train_[a-z0-9]+: precision=' "$1" 2>/dev/null | tail -n 1; }
may_run() {
  if [ "$stopping" = 1 ]; then echo "bench_implicit: error: $1 skipped (TERM)"; return 1; fi
  if [ "$(el)" -gt "$deadline" ]; then echo "bench_implicit: error: $1 skipped (past IMPLICIT_RUN_DEADLINE=${deadline}s)"; return 1; fi
  return 0
}
run_plain() {  # $1 model $2 precision
  local name="$1-$2" rc; cmd_of "$1" "$2"
  rm -f "$res/plain-$name.txt"                                     # nothing stale from an earlier call
  may_run "plain $name" || return
  echo "== plain $name ($(el) s): ${cmd[*]}"
  timeout -k 10 "$run_timeout" "${cmd[@]}" > "$res/plain-$name.txt" 2>&1; rc=$?
  if [ $rc -ne 0 ] || [ -z "$(own_line "$res/plain-$name.txt")" ]; then
    echo "bench_implicit: error: plain $name failed (exit $rc):"; tail -n 15 "$res/plain-$name.txt"
  else own_line "$res/plain-$name.txt"; fi
}
run_profiled() {  # $1 model $2 precision
  local name="$1-$2" rc pf; cmd_of "$1" "$2"; pf="$(pdir_of "$1")/$name.amdahl"
  rm -f "$pf" "${pf%.amdahl}-failed.amdahl" "$res/profiled-$name.txt" "$res/profile-$name.log" "$res/$name-report".*
  may_run "profiled $name" || return
  echo "== amdahl profile --torch $name ($(el) s)"
  timeout -k 10 "$run_timeout" "$amdahl" profile --torch --force -o "$pf" -- "${cmd[@]}" \
    > "$res/profiled-$name.txt" 2> "$res/profile-$name.log"; rc=$?
  if [ $rc -ne 0 ] || [ -z "$(own_line "$res/profiled-$name.txt")" ] || [ ! -s "$pf" ]; then
    echo "bench_implicit: error: profiled $name failed (exit $rc):"
    [ -f "$pf" ] && mv -f "$pf" "${pf%.amdahl}-failed.amdahl"   # kept, not analysed
    tail -n 15 "$res/profiled-$name.txt"; tail -n 15 "$res/profile-$name.log"
  else own_line "$res/profiled-$name.txt"; tail -n 3 "$res/profile-$name.log"; fi
}
analyse() {  # $1 = a name for errors, $2 = the output file, then the amdahl arguments
  local what="$1" out="$2" rc; shift 2
  timeout -k 5 "${IMPLICIT_ANALYSIS_TIMEOUT:-120}" "$amdahl" "$@" > "$out" 2> "$out.err"; rc=$?
  if [ $rc -ne 0 ]; then echo "bench_implicit: error: $what failed (exit $rc): $(head -c 600 "$out.err")"; rm -f "$out"; fi
  [ -s "$out.err" ] || rm -f "$out.err"
  return $rc
}

for m in "${models[@]}"; do
  mapfile -t cs < <(configs_of "$m")
  echo "== $m: ${cs[*]} (plain, then profiled)"
  for c in "${cs[@]}"; do run_plain "$m" "$c"; done
  for c in "${cs[@]}"; do run_profiled "$m" "$c"; done
done

echo "== analysis ($(el) s)"
for m in "${models[@]}"; do
  mapfile -t cs < <(configs_of "$m")
  for c in "${cs[@]}"; do
    name="$m-$c"; pf="$(pdir_of "$m")/$name.amdahl"; [ -s "$pf" ] || continue
    warm_of "$m"
    analyse "report $name" "$res/$name-report.txt" report "$pf" "${warm[@]}"
    analyse "report $name (json)" "$res/$name-report.json" report "$pf" --format json "${warm[@]}"
    echo "-- $name: $(grep -m1 '^verdict:' "$res/$name-report.txt" 2>/dev/null)"
  done
done
for p in "${valid[@]}"; do
  IFS=: read -r m b i <<< "$p"
  base="$m-$b"; imp="$m-$i"; pair="$base-vs-$i"; pb="$(pdir_of "$m")/$base.amdahl"; pi="$(pdir_of "$m")/$imp.amdahl"
  rm -f "$res/$pair"-validate* "$res/$pair"-whatif*
  if [ ! -s "$pb" ] || [ ! -s "$pi" ]; then
    echo "bench_implicit: error: $pair: a profile is missing, no validate/whatif"; continue
  fi
  echo "== validate $base -> $imp ($(el) s)"
  warm_of "$m"
  analyse "validate $pair" "$res/$pair-validate.txt" validate "$pb" "$pi" "${warm[@]}" \
    && cat "$res/$pair-validate.txt"
  if [ -z "${IMPLICIT_AMDAHL_WARMUP:-}" ]; then  # also with the window = the scripts' timed steps
    IMPLICIT_AMDAHL_WARMUP=script warm_of "$m"
    analyse "validate $pair (json, the scripts' warm-up)" "$res/$pair-validate-scriptwarm.json" validate \
      "$pb" "$pi" --format json "${warm[@]}"
    warm_of "$m"
  fi
  analyse "validate $pair (json)" "$res/$pair-validate.json" validate "$pb" "$pi" \
    --format json "${warm[@]}" || continue
  # K: gpu_compute's measured GPU factor (stages[].factor is the GPU part's for a stage with GPU
  # work; a "gpu_factor" or "gpu": {"factor"} field, if a later analyzer has one, wins).
  k="$("$python" - "$res/$pair-validate.json" <<'EOF'
import json, math, sys
try:
    v = json.load(open(sys.argv[1]))
except Exception:
    sys.exit(0)
for s in v.get("stages") or []:
    if s.get("name") != "gpu_compute":
        continue
    f = s.get("gpu_factor")
    if f is None and isinstance(s.get("gpu"), dict):
        f = s["gpu"].get("factor")
    if f is None:
        f = s.get("factor")
    if isinstance(f, (int, float)) and math.isfinite(f) and f > 0:
        print("%.4f" % f)
EOF
)"
  if [ -z "$k" ]; then echo "bench_implicit: error: $pair: no gpu_compute factor in validate's JSON, no whatif"; continue; fi
  echo "== whatif $base --speedup gpu_compute=$k ($(el) s)"
  analyse "whatif $pair" "$res/$pair-whatif.txt" whatif "$pb" --speedup "gpu_compute=$k" "${warm[@]}" \
    && tail -n 25 "$res/$pair-whatif.txt"
  analyse "whatif $pair (json)" "$res/$pair-whatif.json" whatif "$pb" --speedup "gpu_compute=$k" \
    --format json "${warm[@]}"
  # K and H together: the GPU part K times faster and the host part H (validate's host factor
  # of gpu_compute: AMP launches more kernels, so H < 1 there).
  h="$("$python" -c '
import json, math, sys
try:
    v = json.load(open(sys.argv[1]))
except Exception:
    sys.exit(0)
for s in v.get("stages") or []:
    f = (s.get("host") or {}).get("factor") if s.get("name") == "gpu_compute" else None
    if isinstance(f, (int, float)) and math.isfinite(f) and f > 0:
        print("%.4f" % f)
' "$res/$pair-validate.json")"
  if [ -n "$h" ]; then
    echo "== whatif $base --speedup gpu_compute=$k --speedup gpu_compute:host=$h ($(el) s)"
    analyse "whatif $pair (K and H)" "$res/$pair-whatif-both.json" whatif "$pb" --speedup "gpu_compute=$k" \
      --speedup "gpu_compute:host=$h" --format json "${warm[@]}"
  fi
done

echo "== tables ($(el) s)"
pdirs=(); for m in "${models[@]}"; do pdirs+=(--profiles "$(pdir_of "$m")"); done
"$python" "$root/scripts/implicit_table.py" "$res" "${pdirs[@]}" "${valid[@]}" | tee "$res/bench-implicit.md" \
  || echo "bench_implicit: error: the table could not be made"
echo "== bench_implicit done in $(el) s"
