#!/usr/bin/env bash
# Issue 7 "Must show": one PyTorch program profiled both ways on the GPU machine -- amdahl's own
# profile (NVTX + CUPTI, `amdahl profile`) and a torch.profiler (Kineto) trace imported with
# `amdahl import` -- must give stage fractions within 5 points of each other.
# Two runs of the same program: CUPTI takes one activity subscriber per process, so Kineto and
# amdahl's collector cannot both record the same process.
# Usage: scripts/bench_kineto.sh   (needs a built amdahl with CUDA, python3 with torch + CUDA)
# Writes $OUT (default ./bench-out)/kineto_compare.{md,json}, both profiles, both HTML reports,
# and the Kineto trace (gzipped).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${AMDAHL_BUILD_DIR:-$root/build}"
out="${OUT:-$root/bench-out}"
mkdir -p "$out"
amdahl="$build/bin/amdahl"
[ -x "$amdahl" ] || { echo "bench_kineto: $amdahl not built" >&2; exit 2; }
python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' ||
  { echo "bench_kineto: python3 with torch and a CUDA GPU is required" >&2; exit 77; }
steps="${STEPS:-12}"

echo "== amdahl's own profile (NVTX + CUPTI)"
"$amdahl" profile -o "$out/own.amdahl" -- python3 "$root/scripts/make_kineto_trace.py" --mode nvtx --steps "$steps"
echo "== torch.profiler (Kineto) trace"
python3 "$root/scripts/make_kineto_trace.py" --mode kineto --steps "$steps" --trace "$out/kineto_trace.json.gz"
"$amdahl" import "$out/kineto_trace.json.gz" -o "$out/imported.amdahl" --force

for p in own imported; do
  "$amdahl" report "$out/$p.amdahl" --force --format json -o "$out/$p.json"
  "$amdahl" report "$out/$p.amdahl" --force --format html -o "$out/$p.html"
  "$amdahl" report "$out/$p.amdahl" > "$out/$p.txt"
done
"$amdahl" diff "$out/own.amdahl" "$out/imported.amdahl" > "$out/diff.txt" || true

python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
own = json.load(open(f"{out}/own.json"))
imp = json.load(open(f"{out}/imported.json"))
fo = {s["name"]: s["fraction"] for s in own["stages"]}
fi = {s["name"]: s["fraction"] for s in imp["stages"]}
names = [n for n in ["disk_io", "cpu_preprocess", "h2d", "gpu_compute", "d2h", "communication", "other"]
         if n in fo or n in fi]
rows, worst = [], 0.0
for n in names:
    a, b = fo.get(n, 0.0) * 100, fi.get(n, 0.0) * 100
    worst = max(worst, abs(a - b))
    rows.append({"stage": n, "amdahl_pct": round(a, 2), "kineto_pct": round(b, 2), "diff_points": round(b - a, 2)})
ok = worst <= 5.0
md = ["# amdahl's own profile vs an imported Kineto trace (same program, two runs)", "",
      f"steps analysed: amdahl {own['steps']}, kineto {imp['steps']}; mean step: "
      f"{own['wall_ns'] / max(own['steps'], 1) / 1e6:.2f} ms vs {imp['wall_ns'] / max(imp['steps'], 1) / 1e6:.2f} ms", "",
      "| stage | amdahl % | kineto import % | difference (points) |", "|:--|--:|--:|--:|"]
md += [f"| {r['stage']} | {r['amdahl_pct']:.1f} | {r['kineto_pct']:.1f} | {r['diff_points']:+.1f} |" for r in rows]
md += ["", f"largest difference: {worst:.1f} points -> {'PASS' if ok else 'FAIL'} (limit 5 points)",
       f"verdicts: amdahl: {own['verdict']} | kineto: {imp['verdict']}"]
open(f"{out}/kineto_compare.md", "w").write("\n".join(md) + "\n")
json.dump({"rows": rows, "worst_points": worst, "pass": ok}, open(f"{out}/kineto_compare.json", "w"), indent=2)
print("\n".join(md))
sys.exit(0 if ok else 1)
PY
