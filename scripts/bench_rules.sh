#!/usr/bin/env bash
# Rule matching at scale (issue 18, class 6): a trace of NAMES distinct range names (user
# annotations inside 20 ProfilerStep ranges), imported, then `amdahl report --stages` with RULES
# rules of one shape, timed with /usr/bin/time (wall, user+sys, max RSS).
# Shapes: prefix ("NAME*"), literal, contains ("*K*"): looked up by the rule index; general
# ("no?match_K*": tried one by one, in order, as every rule was before the index).
# Usage: scripts/bench_rules.sh [RULES] [NAMES] [AMDAHL] [SHAPES]
#        (defaults 5000 20000 build/bin/amdahl "prefix literal contains general")
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rules="${1:-5000}"
names="${2:-20000}"
amdahl="${3:-${AMDAHL_BUILD_DIR:-$root/build}/bin/amdahl}"
shapes="${4:-prefix literal contains general}"
work="${TMPDIR:-/tmp}/amdahl_bench_rules"
mkdir -p "$work"
trace="$work/trace_${names}.json"
profile="$work/run_${names}.amdahl"
python3 - "$trace" "$names" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
ev, ts, per = [], 0.0, max(1, n // 20)
for s in range(20):
    start = ts
    for k in range(per):
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"op_{s * per + k}_body", "pid": 1, "tid": 1,
                   "ts": ts, "dur": 5.0})
        ts += 6.0
    ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s}", "pid": 1, "tid": 1,
               "ts": start - 0.5, "dur": ts - start + 0.5})
    ts += 10.0
json.dump({"traceEvents": ev}, open(path, "w"))
PY
"$amdahl" import "$trace" -o "$profile" --force 2>/dev/null
for shape in $shapes; do
  f="$work/rules_${shape}_${rules}.txt"
  python3 - "$f" "$rules" "$shape" <<'PY'
import sys
path, n, shape = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(path, "w") as f:
    for i in range(n):  # none of them matches an op name: every name meets every rule
        p = {"prefix": f"nomatch_{i}*", "literal": f"nomatch_{i}", "contains": f"*nomatch_{i}*",
             "general": f"no?match_{i}*"}[shape]
        f.write(f"{p} -> stage_{i % 7}\n")
PY
  /usr/bin/time -f "$shape: %e s wall, %U+%S s CPU, %M KB max RSS" "$amdahl" report "$profile" --stages "$f" \
    --format json >/dev/null
done
