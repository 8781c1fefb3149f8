#!/usr/bin/env python3
"""The issue-17 table from a bench_workers.sh result folder: for each N, the script's own
steady-state timing (last K steps, unprofiled, each round's wN/w0 ratio within the round),
amdahl's `whatif --workers N` from the w0 profile (point and range), `validate w0 wN`, and the
Kineto import of the w4 run against amdahl's own w4 profile.

usage: workers_table.py RESULT_DIR N...
"""
import glob
import json
import os
import re
import statistics
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def last_ms(path):
    try:
        m = re.search(r"^last \d+ steps: ([0-9.]+) ms/step", open(path).read(), re.M)
        return float(m.group(1)) if m else None
    except OSError:
        return None


def pct(a, b):
    return "%+.1f%%" % (100.0 * (a - b) / b) if a is not None and b else "-"


def main():
    res, ws = sys.argv[1], [int(x) for x in sys.argv[2:]]
    rounds = sorted({int(m.group(1)) for p in glob.glob(os.path.join(res, "plain-w*-r*.txt"))
                     for m in [re.search(r"-r(\d+)\.txt$", p)] if m})
    print("## DataLoader num_workers 0 -> N: predicted from the w0 profile vs the script's own steady state\n")
    print("| N | unprofiled ms/step (last steps, per round) | measured speedup wN/w0 (per round) | whatif --workers N | range | vs measured | validate predicted | validate measured (amdahl window) | validate error |")
    print("|---|---|---|---|---|---|---|---|---|")
    for w in ws:
        ms = [last_ms(os.path.join(res, "plain-w%d-r%d.txt" % (w, r))) for r in rounds]
        base = [last_ms(os.path.join(res, "plain-w0-r%d.txt" % r)) for r in rounds]
        ratios = [b / m for b, m in zip(base, ms) if b and m]
        meas = statistics.mean(ratios) if ratios else None
        wi = load(os.path.join(res, "whatif-w%d.json" % w)) if w else None
        va = load(os.path.join(res, "validate-w%d.json" % w)) if w else None
        sim = wi.get("simulated_speedup") if wi else None
        rng = (wi or {}).get("workers_range") or (wi or {}).get("simulated_interval")
        rng_s = "[%.2f, %.2f]" % (rng[0], rng[1]) if rng and None not in rng[:2] else "-"
        inside = ""
        if rng and meas and None not in rng[:2]:
            inside = " (inside)" if rng[0] <= meas <= rng[1] else " (outside)"
        print("| %d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            w, " / ".join("%.1f" % m if m else "-" for m in ms),
            " / ".join("%.2f" % r for r in ratios) + (" (mean %.2f)" % meas if meas else ""),
            "%.2f" % sim if isinstance(sim, (int, float)) else "-", rng_s + inside,
            pct(sim, meas) if isinstance(sim, (int, float)) else "-",
            "%.2f" % va["predicted_simulated"] if va and isinstance(va.get("predicted_simulated"), (int, float)) else "-",
            "%.2f" % va["measured_speedup"] if va and isinstance(va.get("measured_speedup"), (int, float)) else "-",
            "%+.1f%%" % (100 * va["simulated_error"]) if va and isinstance(va.get("simulated_error"), (int, float)) else "-"))
    own, kin = load(os.path.join(res, "report-w4.json")), load(os.path.join(res, "kineto-report-w4.json"))
    if own and kin:
        print("\n## Kineto import of the w4 run vs amdahl's own w4 profile (exposed fractions, points)\n")
        def fr(r):
            d = {s["name"]: s.get("fraction", 0.0) for s in r.get("stages", [])}
            d["input (disk_io+cpu_preprocess+data_loading)"] = sum(d.get(k, 0.0) for k in ("disk_io", "cpu_preprocess", "data_loading", "input_wait"))
            return d
        a, b = fr(own), fr(kin)
        print("| stage | amdahl profile | kineto import | difference (points) |")
        print("|---|---|---|---|")
        for k in sorted(set(a) | set(b)):
            print("| %s | %.1f | %.1f | %+.1f |" % (k, 100 * a.get(k, 0), 100 * b.get(k, 0), 100 * (b.get(k, 0) - a.get(k, 0))))
        print("\nsteps: amdahl %s, kineto %s" % (own.get("steps"), kin.get("steps")))


if __name__ == "__main__":
    main()
