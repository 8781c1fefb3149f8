#!/usr/bin/env bash
# Issue 20 must-show on the GPU machine: the cost of `amdahl profile` with its defaults (--torch
# hooks on for a Python command, GPU activity sampled: --gpu-sample 10/200@20) against the run
# unprofiled, fully traced (--gpu-steps all) and under torch.profiler, on
#  - ResNet-50 AMP fp16, batch 128, synthetic data (scripts/bench_overhead_resnet50.py), and
#  - a small transformers BERT in fp32, launch bound (workloads/python/train_bert.py),
# BENCH_ROUNDS (3) interleaved rounds; then the stage fractions of the sampled and the fully
# traced profile of round 1 (amdahl report --format json). Prints one table; writes
# $OUT/sampled.md and the round-1 profiles gzipped (4 files).
# BENCH_HOOKS=1 adds a per-hook cost run on BERT (AMDAHL_TORCH_SKIP rounds, CUPTI off, so only
# the hooks and their NVTX ranges cost) after the main table: HOOKS_ROUNDS (2), HOOKS_CONFIGS
# (none-torch module-calls-all range-cpu-off all-hooks and AMDAHL_TORCH_SKIP lists; see below).
# BENCH_ROUNDS=0 skips the main table.
# A config may carry its own run length, CONFIG:N (N timed steps / iterations), compared with
# unprofiled:N of the same round: e.g. "unprofiled sampled unprofiled:400 torch_profiler:400"
# (torch.profiler's trace of a long run takes minutes to write). Configs: unprofiled, sampled
# (the defaults), hooks_only (AMDAHL_CUPTI=0: the --torch hooks and NVTX ranges, no CUPTI),
# traced_all (--gpu-steps all), multi (--gpu-sample $BENCH_MULTI, default 5/50@10: many
# windows, each a re-attach; its profile checks the correlation ids), torch_profiler.
# Knobs: BENCH_ROUNDS (3), RN_WARMUP (30), RN_ITERS (200), BERT_WARMUP (30), BERT_STEPS (400),
#        BENCH_BUDGET_S (420: later rounds are skipped past it), BENCH_SAMPLE (the default schedule),
#        BENCH_MODELS ("resnet50 bert"), BENCH_CONFIGS ("unprofiled sampled traced_all torch_profiler"),
#        BENCH_ONCE (configs run in round 1 only, after BENCH_CONFIGS: for the fractions).
# Usage: OUT=/some/dir scripts/bench_sampled.sh   (build first; AMDAHL_BUILD_DIR honoured)
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${AMDAHL_BUILD_DIR:-$root/build}"
A="$build/bin/amdahl"
out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
rounds="${BENCH_ROUNDS:-3}"
budget="${BENCH_BUDGET_S:-420}"
sample=()
[ -n "${BENCH_SAMPLE:-}" ] && sample=(--gpu-sample "$BENCH_SAMPLE")
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
t0=$(date +%s)
elapsed() { echo $(( $(date +%s) - t0 )); }
[ -x "$A" ] || { echo "bench_sampled: missing $A (build first)" >&2; exit 1; }
table="$work/table.tsv"   # model round config value unit
: > "$table"

RN=(python3 "$root/scripts/bench_overhead_resnet50.py" --dtypes fp16 --batch-size 128
    --warmup "${RN_WARMUP:-30}" --iters "${RN_ITERS:-200}")
BERT=(python3 "$root/workloads/python/train_bert.py" --precision fp32 --no-sync-check
      --warmup-steps "${BERT_WARMUP:-30}" --steps "${BERT_STEPS:-400}")

rn_value() { sed -n 's/^RESULT //p' | python3 -c 'import json,sys
for l in sys.stdin: print(json.loads(l)["images_per_sec"])' | head -1; }
bert_value() { tee -a "$work/bert.log" | sed -n 's/.*ms_per_step=\([0-9.]*\).*/\1/p' | head -1; }

run_cfg() {  # run_cfg MODEL ROUND CONFIG[:N]
  local model="$1" r="$2" label="$3" cfg="${3%%:*}" n="" v cmd
  [ "$label" != "$cfg" ] && n="${label#*:}"
  local prof="$work/$model-$cfg${n:+-$n}-r$r.amdahl"
  if [ "$model" = resnet50 ]; then cmd=("${RN[@]}" ${n:+--iters "$n"}); else cmd=("${BERT[@]}" ${n:+--steps "$n"}); fi
  echo "== $model r$r $label" >> "$work/bert.log"
  case "$cfg" in
    unprofiled) v="$("${cmd[@]}" 2>"$work/err" | ${model}_value_fn)";;
    sampled) v="$("$A" profile -o "$prof" --force "${sample[@]}" -- "${cmd[@]}" 2>"$work/err" | ${model}_value_fn)";;
    hooks_only) v="$(AMDAHL_CUPTI=0 "$A" profile -o "$prof" --force -- "${cmd[@]}" 2>"$work/err" | ${model}_value_fn)";;
    multi) v="$("$A" profile -o "$prof" --force --gpu-sample "${BENCH_MULTI:-5/50@10}" -- "${cmd[@]}" 2>"$work/err" | ${model}_value_fn)";;
    traced_all) v="$("$A" profile -o "$prof" --force --gpu-steps all -- "${cmd[@]}" 2>"$work/err" | ${model}_value_fn)";;
    torch_profiler)
      if [ "$model" = resnet50 ]; then
        v="$("${cmd[@]}" --mode torchprof 2>"$work/err" | ${model}_value_fn)"
      else
        v="$(python3 "$root/scripts/kineto_wrap.py" "$work/k.json" "${cmd[@]:1}" 2>"$work/err" | ${model}_value_fn)"
        rm -f "$work/k.json"
      fi;;
  esac
  [ -z "$v" ] && { v=nan; echo "bench_sampled: $model $cfg round $r failed: $(tail -3 "$work/err")" >&2; }
  printf '%s\t%s\t%s\t%s\n' "$model" "$r" "$label" "$v" >> "$table"
  echo "[$(elapsed) s] $model r$r $label: $v"
  if [ "$r" != 1 ]; then rm -f "$prof"; fi
}
resnet50_value_fn() { rn_value; }
bert_value_fn() { bert_value; }

for r in $(seq "$rounds"); do
  if [ "$r" -gt 1 ] && [ "$(elapsed)" -gt "$budget" ]; then echo "budget of $budget s spent: round $r skipped"; break; fi
  for model in ${BENCH_MODELS:-resnet50 bert}; do
    for cfg in ${BENCH_CONFIGS:-unprofiled sampled traced_all torch_profiler}; do run_cfg "$model" "$r" "$cfg"; done
    if [ "$r" = 1 ]; then for cfg in ${BENCH_ONCE:-}; do run_cfg "$model" "$r" "$cfg"; done; fi
  done
done

# The stage fractions of the round-1 sampled and fully traced profiles.
fractions="$work/fractions.tsv"
: > "$fractions"
for model in ${BENCH_MODELS:-resnet50 bert}; do
  for p in "$work/$model"-{sampled,multi,traced_all}*-r1.amdahl; do
    [ -f "$p" ] || continue
    cfg="$(basename "$p" -r1.amdahl)"; cfg="${cfg#"$model"-}"
    # Correlation ids: every GPU op's (pid, id) must be its own (a re-attach numbers afresh).
    python3 - "$p" "$model" "$cfg" >> "$out/correlation.txt" <<'PY'
import sqlite3, sys
p, model, cfg = sys.argv[1:4]
c = sqlite3.connect(p)
ops, distinct = c.execute("select count(*), count(distinct pid || ':' || correlation_id) from gpu_ops where correlation_id != 0").fetchone()
calls, dcalls = c.execute("select count(*), count(distinct pid || ':' || correlation_id) from api_calls where correlation_id != 0").fetchone()
wins = c.execute("select count(*) from marks m join strings s on s.id = m.name_id where s.value = 'gpu_trace_on'").fetchone()[0]
print("%s %s: gpu_trace_on marks %d; gpu ops %d, distinct (pid, correlation) %d; api calls %d, distinct %d" % (model, cfg, wins, ops, distinct, calls, dcalls))
PY
    "$A" report --format json "$p" > "$work/rep.json" 2>"$work/err" || { echo "report of $p failed: $(tail -2 "$work/err")" >&2; continue; }
    python3 - "$model" "$cfg" "$work/rep.json" >> "$fractions" <<'PY'
import json, sys
model, cfg, path = sys.argv[1:4]
r = json.load(open(path))
s = r.get("gpu_sampling", {})
extra = "steps=%s traced=%s/%s" % (r.get("steps"), s.get("traced_steps", "all"), s.get("run_steps", r.get("total_steps")))
if "window_cost_share" in s:  # what the windows cost, from the run's own steps
    extra += " windows_cost=%+.2f%%" % (100 * s["window_cost_share"])
for st in r.get("stages", []):
    print("%s\t%s\t%s\t%.4f\t%s" % (model, cfg, st.get("name"), st.get("fraction", 0.0), extra))
PY
    # Profiles under 30 MB come back (the device tool returns files of 16 MiB at most).
    [ "$(stat -c %s "$p")" -lt 30000000 ] && gzip -1 -c "$p" > "$out/$model-$cfg.amdahl.gz"
  done
done
[ -f "$out/correlation.txt" ] && cat "$out/correlation.txt"
cp "$work/bert.log" "$out/runs.log" 2>/dev/null

python3 - "$table" "$fractions" > "$out/sampled.md" <<'PY'
import collections, math, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
v = {(m, int(r), c): float(x) for m, r, c, x in rows}
unit = {"resnet50": "img/s (higher is better)", "bert": "ms/step (lower is better)"}
print("## Throughput / step time per round\n")
print("| model | round | config | value | cost vs unprofiled (same round) |")
print("|---|---|---|---|---|")
def base_of(m, r, c):
    n = c.split(":", 1)[1] if ":" in c else None
    return v.get((m, r, "unprofiled" + (":" + n if n else "")), float("nan"))
for (m, r, c), x in sorted(v.items()):
    base = base_of(m, r, c)
    if m == "resnet50":
        cost = (base / x - 1) * 100 if x and not math.isnan(x) else float("nan")
    else:
        cost = (x / base - 1) * 100 if base and not math.isnan(base) else float("nan")
    print("| %s | %d | %s | %s %s | %+.1f%% |" % (m, r, c, x, unit[m].split(" ")[0], cost))
print("\nCost: step time ratio - 1 (ResNet-50: unprofiled img/s / img/s - 1).\n")
print("| model | config | cost per round | mean |")
print("|---|---|---|---|")
for m in sorted({k[0] for k in v}):
    for c in sorted({k[2] for k in v if k[0] == m and not k[2].startswith("unprofiled")}):
        costs = []
        for (mm, r, cc), x in sorted(v.items()):
            if mm != m or cc != c:
                continue
            base = base_of(m, r, c)
            costs.append((base / x - 1) * 100 if m == "resnet50" else (x / base - 1) * 100)
        ok = [x for x in costs if not math.isnan(x)]
        if costs:
            print("| %s | %s | %s | %s |" % (m, c, ", ".join("%+.1f%%" % x for x in costs),
                                            "%+.1f%%" % (sum(ok) / len(ok)) if ok else "n/a"))
print()
print("## Stage fractions, round 1: sampled vs fully traced\n")
fr = collections.defaultdict(dict)
info = {}
for l in open(sys.argv[2]):
    m, c, st, f, extra = l.rstrip("\n").split("\t")
    fr[(m, st)][c] = float(f)
    info[(m, c)] = extra
cfgs = sorted({c for d in fr.values() for c in d})
full = [c for c in cfgs if c.startswith("traced_all")]
print("| model | stage | " + " | ".join(cfgs) + " | sampled/multi minus fully traced (points) |")
print("|---|---|" + "---|" * len(cfgs) + "---|")
for (m, st), d in sorted(fr.items()):
    ref = d.get(full[0], float("nan")) if full else float("nan")
    diffs = ", ".join("%s %+.1f" % (c, (d.get(c, float("nan")) - ref) * 100) for c in cfgs if c not in full)
    print("| %s | %s | " % (m, st) + " | ".join("%.1f%%" % (d.get(c, float("nan")) * 100) for c in cfgs) + " | %s |" % diffs)
for (m, c), e in sorted(info.items()):
    print("\n%s %s: %s" % (m, c, e), end="")
print()
PY
cat "$out/sampled.md"

if [ "${BENCH_HOOKS:-0}" = 1 ]; then
  echo "== BERT per-hook cost (AMDAHL_CUPTI=0: hooks and NVTX only)" | tee "$out/hooks.md"
  hook_cfgs="${HOOKS_CONFIGS:-none-torch module-calls-all range-cpu-off all-hooks module_forward tensor_to,tensor_cuda,tensor_pin_memory optimizer_step,optimizer_zero_grad,grad_scaler_step tensor_backward,autograd_backward}"
  for r in $(seq "${HOOKS_ROUNDS:-2}"); do
    for skip in $hook_cfgs; do
      [ "$skip" = all-hooks ] && skip=""
      if [ "$skip" = none-torch ]; then   # the collector alone (NVTX of the libraries, no hooks)
        v="$(AMDAHL_CUPTI=0 "$A" profile --no-torch -o "$work/h.amdahl" --force -- "${BERT[@]}" 2>/dev/null | bert_value)"
        label="--no-torch"
      elif [ "$skip" = module-calls-all ]; then   # every module call through the general wrapper (before issue 20)
        v="$(AMDAHL_TORCH_MODULE_CALLS=all AMDAHL_CUPTI=0 "$A" profile -o "$work/h.amdahl" --force -- "${BERT[@]}" 2>/dev/null | bert_value)"
        label="AMDAHL_TORCH_MODULE_CALLS=all"
      elif [ "$skip" = range-cpu-off ]; then   # no per-range CPU clocks (AMDAHL_RANGE_CPU=0)
        v="$(AMDAHL_RANGE_CPU=0 AMDAHL_CUPTI=0 "$A" profile -o "$work/h.amdahl" --force -- "${BERT[@]}" 2>/dev/null | bert_value)"
        label="AMDAHL_RANGE_CPU=0"
      else
        v="$(AMDAHL_CUPTI=0 AMDAHL_TORCH_SKIP="$skip" "$A" profile -o "$work/h.amdahl" --force -- "${BERT[@]}" 2>/dev/null | bert_value)"
        label="skip=${skip:-nothing}"
      fi
      u="$("${BERT[@]}" 2>/dev/null | bert_value)"
      echo "r$r $label: ${v:-nan} ms/step (unprofiled just before: ${u:-nan})" | tee -a "$out/hooks.md"
    done
  done
fi
echo "total $(elapsed) s; files in $out:"
ls -la "$out"
