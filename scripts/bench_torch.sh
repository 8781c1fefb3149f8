#!/usr/bin/env bash
# GPU-machine run for `amdahl profile --torch` (issue 4): makes a JPEG ImageFolder on disk, runs
# the unmodified torchvision ResNet-50 script (workloads/python/train_imagefolder.py) with
# num_workers 0 and 4, plain (the script's own ms/step) and under `amdahl profile --torch`,
# prints both reports, the what-ifs of 4x faster preprocessing and of 4 loader workers
# (--workers 4) on the w0 profile and the measured w4/w0 speedup, and the annotation overhead. Results go to $OUT_RESULTS (or $OUT/results).
# Env: TORCH_BENCH_STEPS (40), TORCH_BENCH_BATCH (64), TORCH_BENCH_IMAGES (2000),
#      TORCH_BENCH_DATA (/tmp/amdahl-imagefolder), TORCH_BENCH_AMP (1: bf16 autocast).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
OUT="${OUT:-$root/out}"
res="${OUT_RESULTS:-$OUT/results}"
mkdir -p "$res"
build="${AMDAHL_BUILD_DIR:-$root/build}"
amdahl="$build/bin/amdahl"
steps="${TORCH_BENCH_STEPS:-40}"
batch="${TORCH_BENCH_BATCH:-64}"
nimg="${TORCH_BENCH_IMAGES:-2000}"
data="${TORCH_BENCH_DATA:-/tmp/amdahl-imagefolder}"
amp=(); [ "${TORCH_BENCH_AMP:-1}" = "1" ] && amp=(--amp --channels-last)
script="$root/workloads/python/train_imagefolder.py"
md="$res/bench-torch.md"
t0=$(date +%s)

[ -x "$amdahl" ] || { echo "bench_torch: $amdahl is not built"; exit 1; }
python3 -c "import torch, torchvision, PIL" || { echo "bench_torch: needs torch, torchvision and PIL"; exit 1; }
python3 -c "import nvtx" 2>/dev/null || echo "bench_torch: WARNING: no nvtx package: torch.cuda.nvtx fallback, no produce/consume links"
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())"

# 1. The dataset: $nimg JPEGs of 500x375, 10 classes; smooth random colour fields plus noise
#    (so they compress and decode like photographs, ~30-60 KB each). Generated in parallel.
python3 "$root/scripts/make_imagefolder.py" "$data" "$nimg"
echo "== dataset: $(find "$data" -name '*.jpg' | wc -l) JPEGs, $(du -sh "$data" | cut -f1) in $data ($(( $(date +%s) - t0 )) s)"

common=("$data" --batch-size "$batch" --steps "$steps" --log-every 10 "${amp[@]}")
for w in 0 4; do
  echo "== plain w$w ($(( $(date +%s) - t0 )) s)"
  python3 "$script" "${common[@]}" --workers "$w" > "$res/torch-plain-w$w.txt" 2>&1
  tail -n 1 "$res/torch-plain-w$w.txt"
  echo "== amdahl profile --torch w$w ($(( $(date +%s) - t0 )) s)"
  "$amdahl" profile --torch --force -o "$res/torch-w$w.amdahl" -- \
    python3 "$script" "${common[@]}" --workers "$w" > "$res/torch-profiled-w$w.txt" 2> "$res/torch-profile-w$w.log"
  echo "exit $?"; tail -n 1 "$res/torch-profiled-w$w.txt"; cat "$res/torch-profile-w$w.log"
  "$amdahl" report "$res/torch-w$w.amdahl" > "$res/torch-w$w-report.txt" 2>&1
  "$amdahl" report "$res/torch-w$w.amdahl" --format json > "$res/torch-w$w-report.json" 2>/dev/null
  echo "== report w$w"; cat "$res/torch-w$w-report.txt"
done

echo "== what-if on w0: cpu_preprocess and disk_io 4x faster"
"$amdahl" whatif "$res/torch-w0.amdahl" --speedup cpu_preprocess=4 --speedup disk_io=4 | tee "$res/torch-whatif.txt"
"$amdahl" whatif "$res/torch-w0.amdahl" --speedup cpu_preprocess=4 --speedup disk_io=4 --format json \
  > "$res/torch-whatif.json" 2>/dev/null
echo "== what-if on w0: 4 loader workers (the structural what-if, whatif --workers 4)"
"$amdahl" whatif "$res/torch-w0.amdahl" --workers 4 | tee "$res/torch-whatif-workers.txt"
"$amdahl" whatif "$res/torch-w0.amdahl" --workers 4 --format json > "$res/torch-whatif-workers.json" 2>/dev/null
if "$amdahl" validate --help >/dev/null 2>&1; then
  echo "== amdahl validate w0 -> w4"
  "$amdahl" validate "$res/torch-w0.amdahl" "$res/torch-w4.amdahl" 2>&1 | tee "$res/torch-validate.txt"
fi

# 2. The comparison and the overhead, as a markdown table.
python3 - "$res" "$batch" <<'EOF' | tee "$md"
import json, os, re, sqlite3, sys
res, batch = sys.argv[1], int(sys.argv[2])
def load(p):
    try:
        return json.load(open(os.path.join(res, p)))
    except Exception:
        return None
def ms_step(p):
    try:
        m = re.search(r"([0-9.]+) ms/step", open(os.path.join(res, p)).read())
        return float(m.group(1)) if m else None
    except OSError:
        return None
def per_step(r):
    return r["wall_ns"] / r["steps"] / 1e6 if r and r.get("steps") else None
r0, r4, wi = load("torch-w0-report.json"), load("torch-w4-report.json"), load("torch-whatif.json")
print("## amdahl profile --torch: ResNet-50, ImageFolder of JPEGs, batch %d\n" % batch)
print("| run | script ms/step plain | script ms/step profiled | overhead | amdahl ms/step (window) | verdict |")
print("|---|---|---|---|---|---|")
for w, r in ((0, r0), (4, r4)):
    p, q = ms_step("torch-plain-w%d.txt" % w), ms_step("torch-profiled-w%d.txt" % w)
    ov = "%.1f%%" % (100 * (q - p) / p) if p and q else "-"
    a = per_step(r)
    print("| num_workers=%d | %s | %s | %s | %s | %s |" % (w, p or "-", q or "-", ov,
          "%.1f" % a if a else "-", (r or {}).get("verdict", "-")))
for w, r in ((0, r0), (4, r4)):
    if not r:
        continue
    print("\nw%d exposed fractions: %s" % (w, ", ".join("%s %.3f" % (s["name"], s["fraction"])
          for s in r["stages"] if s["fraction"] > 0.0005)))
# Ranges per batch and their cost: the annotations' per-batch overhead estimate.
for w in (0, 4):
    try:
        db = sqlite3.connect(os.path.join(res, "torch-w%d.amdahl" % w))
        n = db.execute("SELECT count(*) FROM ranges_named WHERE domain='amdahl'").fetchone()[0]
        k = db.execute("SELECT count(*) FROM marks_named WHERE domain='amdahl'").fetchone()[0]
        s = db.execute("SELECT count(*) FROM ranges_named WHERE domain='amdahl' AND name='step'").fetchone()[0]
        u = [x[0] for x in db.execute("SELECT DISTINCT name FROM marks_named WHERE name LIKE 'torch.uncovered:%'")]
        print("\nw%d: %d amdahl ranges and %d marks for %d steps (%.1f ranges per step, all processes); uncovered: %s"
              % (w, n, k, s, n / max(s, 1), ", ".join(u) or "none"))
    except Exception as e:  # noqa: BLE001
        print("\nw%d: profile unreadable: %s" % (w, e))
m0, m4 = per_step(r0), per_step(r4)
if m0 and m4 and wi:
    measured = m0 / m4
    print("\n| what-if (w0 profile: cpu_preprocess=4, disk_io=4) | value | vs measured w4/w0 %.3f |" % measured)
    print("|---|---|---|")
    for key in ("naive_speedup", "simulated_speedup"):
        v = wi.get(key)
        if isinstance(v, (int, float)):
            print("| %s | %.3f | %+.1f%% |" % (key, v, 100 * (v - measured) / measured))
    for key in ("naive_interval", "simulated_interval"):
        if wi.get(key):
            print("| %s | [%.3f, %.3f] | |" % (key, wi[key][0], wi[key][1]))
    ww = load("torch-whatif-workers.json")
    if ww and isinstance(ww.get("simulated_speedup"), (int, float)):
        v = ww["simulated_speedup"]
        print("| whatif --workers %s: simulated_speedup | %.3f | %+.1f%% |" % (ww.get("workers"), v, 100 * (v - measured) / measured))
    ps0, ps4 = ms_step("torch-plain-w0.txt"), ms_step("torch-plain-w4.txt")
    if ps0 and ps4:
        print("\nmeasured w4/w0 from the plain runs' own timing: %.3f" % (ps0 / ps4))
EOF
echo "== bench_torch done in $(( $(date +%s) - t0 )) s"
