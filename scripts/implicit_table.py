#!/usr/bin/env python3
"""The tables of scripts/bench_implicit.sh: own timing of unmodified PyTorch programs against amdahl.

Usage: implicit_table.py RESULTS_DIR [--profiles DIR]... model:base:improved ...

Reads, per run NAME = model-precision: plain-NAME.txt and profiled-NAME.txt (the programs' own
`train_*: precision=... ms_per_step=X` line), NAME-report.json and NAME.amdahl; per pair
PAIR = model-base-vs-improved: PAIR-validate.json and PAIR-whatif.json. Profiles are looked for
in RESULTS_DIR and in every --profiles DIR. Anything missing or
unreadable reads "failed" (a run) or "-" (a figure). Prints markdown.
"""
import json
import math
import os
import re
import sqlite3
import sys

FAILED = "failed"


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def own(path):
    """The program's own line: {'ms': float, 'syncs': int or None} or None."""
    try:
        with open(path, errors="replace") as f:
            lines = [ln for ln in f if re.match(r"^train_[a-z0-9]+: precision=", ln)]
    except OSError:
        return None
    if not lines:
        return None
    m = re.search(r"ms_per_step=([0-9.]+)", lines[-1])
    if not m:
        return None
    s = re.search(r"syncs_per_step=([0-9]+)", lines[-1])
    return {"ms": float(m.group(1)), "syncs": int(s.group(1)) if s else None}


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def fx(v, digits=3):
    return ("%.*fx" % (digits, v)) if num(v) else "-"


def err(pred, measured):
    return ("%+.1f%%" % (100.0 * (pred / measured - 1.0))) if num(pred) and num(measured) and measured > 0 else "-"


def window_ms(r):
    if r and num(r.get("wall_ns")) and r.get("steps"):
        return r["wall_ns"] / r["steps"] / 1e6
    return None


def cell(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def torch_marks(path):
    """The annotation route and the uncovered hooks recorded by --torch (domain amdahl marks)."""
    try:
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        names = [r[0] for r in db.execute(
            "SELECT DISTINCT name FROM marks_named WHERE name LIKE 'torch.annotations:%' "
            "OR name LIKE 'torch.uncovered:%'")]
        db.close()
    except Exception:  # noqa: BLE001 -- a table that is not there, an unreadable file
        return "-"
    route = [n.split(":", 1)[1] for n in names if n.startswith("torch.annotations:")]
    unc = sorted(n.split(":", 1)[1] for n in names if n.startswith("torch.uncovered:"))
    return "%s; uncovered: %s" % (",".join(route) or "?", ", ".join(unc) or "none")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    res, pairs, pdirs = argv[1], [], [argv[1]]
    args = argv[2:]
    while args:
        p = args.pop(0)
        if p == "--profiles":
            if args:
                pdirs.append(args.pop(0))
            continue
        parts = p.split(":")
        if len(parts) == 3 and all(parts):
            pairs.append(tuple(parts))
    runs = []
    for m, b, i in pairs:
        for c in (b, i):
            if "%s-%s" % (m, c) not in runs:
                runs.append("%s-%s" % (m, c))
    path = lambda n: os.path.join(res, n)  # noqa: E731

    def profile(n):
        for d in pdirs:
            if os.path.exists(os.path.join(d, "%s.amdahl" % n)):
                return os.path.join(d, "%s.amdahl" % n)
        return None

    plain = {n: own(path("plain-%s.txt" % n)) for n in runs}
    prof = {n: own(path("profiled-%s.txt" % n)) for n in runs}
    rep = {n: load_json(path("%s-report.json" % n)) for n in runs}

    print("## Unmodified PyTorch programs: own timing against `amdahl profile --torch`\n")
    print("### Runs\n")
    print("| run | own ms/step plain | own ms/step profiled | profiling overhead | amdahl ms/step (window) "
          "| steps (warm-up) | GPU ops/step | GPU busy ms/step (share) | syncs/step | verdict |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for n in runs:
        p, q, r = plain[n], prof[n], rep[n]
        ov = "%+.1f%%" % (100 * (q["ms"] / p["ms"] - 1)) if p and q else "-"
        w = window_ms(r)
        steps = "%s (%s)" % (r.get("steps"), r.get("warmup_steps")) if r else "-"
        ops = busy = "-"
        g = (r or {}).get("gpu") or {}
        if r and r.get("steps") and g.get("present"):
            if num(g.get("ops_in_window")):
                ops = "%.0f" % (g["ops_in_window"] / r["steps"])
            if num(g.get("busy_ns")) and num(r.get("wall_ns")) and r["wall_ns"] > 0:
                busy = "%.2f (%.0f%%)" % (g["busy_ns"] / r["steps"] / 1e6, 100 * g["busy_ns"] / r["wall_ns"])
        syncs = (q or p or {}).get("syncs")
        verdict = (r or {}).get("headline") or (r or {}).get("verdict")
        if r is None:
            verdict = FAILED if not profile(n) else "report failed"
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            n, "%.2f" % p["ms"] if p else FAILED, "%.2f" % q["ms"] if q else FAILED, ov,
            "%.2f" % w if w else "-", steps, ops, busy, "-" if syncs is None else syncs, cell(verdict or "-")))

    print("\n### Pairs: measured speedups and amdahl's predictions from the base run\n")
    print("Errors are prediction / measured - 1, against the programs' own plain speedup and against "
          "amdahl's window speedup (the two profiles' analysed ms/step). K: gpu_compute's GPU factor "
          "measured by `validate` between the two profiles; whatif: `amdahl whatif base --speedup "
          "gpu_compute=K`, simulated (classic).\n")
    print("| pair | own plain ms/step base -> improved | own speedup plain | own speedup profiled "
          "| amdahl window speedup | validate classic (err vs plain) | validate simulated "
          "| simulated err vs plain / vs window | K | whatif K: simulated (classic) | whatif err vs plain / vs window "
          "| H (host) | whatif K + H: simulated | err vs plain / vs window |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    notes = []
    for m, b, i in pairs:
        nb, ni = "%s-%s" % (m, b), "%s-%s" % (m, i)
        pair = "%s-vs-%s" % (nb, i)
        v = load_json(path("%s-validate.json" % pair))
        wi = load_json(path("%s-whatif.json" % pair))
        wboth = load_json(path("%s-whatif-both.json" % pair))
        pb, pi, qb, qi = plain[nb], plain[ni], prof[nb], prof[ni]
        own_plain = pb["ms"] / pi["ms"] if pb and pi and pi["ms"] > 0 else None
        own_prof = qb["ms"] / qi["ms"] if qb and qi and qi["ms"] > 0 else None
        wb, wim = window_ms(rep[nb]), window_ms(rep[ni])
        window = wb / wim if wb and wim else None
        if v and num(v.get("measured_speedup")):
            window = v["measured_speedup"]
        k = None
        host_k = None
        gpu_row = None
        for s in (v or {}).get("stages") or []:
            if s.get("name") == "gpu_compute":
                gpu_row = s
        if gpu_row:
            k = gpu_row.get("gpu_factor")
            if k is None and isinstance(gpu_row.get("gpu"), dict):
                k = gpu_row["gpu"].get("factor")
            if k is None:
                k = gpu_row.get("factor")
            if isinstance(gpu_row.get("host"), dict):
                host_k = gpu_row["host"].get("factor")
        classic = (v or {}).get("predicted_naive")
        sim = (v or {}).get("predicted_simulated")
        w_sim = (wi or {}).get("simulated_speedup")
        w_classic = (wi or {}).get("naive_speedup")
        vfail = "-" if v else FAILED
        wb_sim = (wboth or {}).get("simulated_speedup")
        print("| %s -> %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            nb, i,
            "%s -> %s" % ("%.2f" % pb["ms"] if pb else FAILED, "%.2f" % pi["ms"] if pi else FAILED),
            fx(own_plain) if own_plain else FAILED, fx(own_prof) if own_prof else FAILED,
            fx(window) if window else FAILED,
            "%s (%s)" % (fx(classic), err(classic, own_plain)) if v else FAILED,
            fx(sim) if v else FAILED,
            "%s / %s" % (err(sim, own_plain), err(sim, window)) if v else vfail,
            ("%.3f" % k if num(k) else "-") if v else FAILED,
            "%s (%s)" % (fx(w_sim), fx(w_classic)) if wi else FAILED,
            "%s / %s" % (err(w_sim, own_plain), err(w_sim, window)) if wi else FAILED,
            "%.3f" % host_k if num(host_k) else "-",
            fx(wb_sim) if wboth else "-",
            "%s / %s" % (err(wb_sim, own_plain), err(wb_sim, window)) if wboth else "-"))
        if v:
            bits = []
            if num(host_k):
                bits.append("gpu_compute host part factor %.3f" % host_k)
            bl = (v.get("bottleneck") or {}).get("line")
            if bl:
                bits.append(bl)
            b = v.get("bounds") or {}
            if b.get("any"):
                bits.append("bounds: %s" % b.get("direction"))
            bits += [str(x) for x in v.get("notes") or []]
            if bits:
                notes.append("* %s -> %s: %s" % (nb, i, "; ".join(cell(x) for x in bits)))
    if notes:
        print("\nvalidate:\n")
        print("\n".join(notes))

    rows = []
    for m, b, i in pairs:
        nb, ni = "%s-%s" % (m, b), "%s-%s" % (m, i)
        v = load_json(path("%s-vs-%s-validate-scriptwarm.json" % (nb, i)))
        if not v:
            continue
        pb, pi = plain[nb], plain[ni]
        own_plain = pb["ms"] / pi["ms"] if pb and pi and pi["ms"] > 0 else None
        window = v.get("measured_speedup")
        sim, classic = v.get("predicted_simulated"), v.get("predicted_naive")
        rows.append("| %s -> %s | %s | %s | %s | %s (%s) | %s | %s / %s |" % (
            nb, i, fx(own_plain) if own_plain else FAILED,
            "%.2f -> %.2f" % ((v.get("base") or {}).get("ms_per_step", float("nan")),
                              (v.get("improved") or {}).get("ms_per_step", float("nan"))),
            fx(window), fx(classic), err(classic, own_plain), fx(sim), err(sim, own_plain), err(sim, window)))
    if rows:
        print("\n### Pairs, amdahl's window = the scripts' timed steps (`--warmup` = their warm-up steps)\n")
        print("| pair | own speedup plain | amdahl ms/step base -> improved | amdahl window speedup "
              "| validate classic (err vs plain) | validate simulated | simulated err vs plain / vs window |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        print("\n".join(rows))

    marks = [(n, torch_marks(profile(n))) for n in runs if profile(n)]
    if marks:
        print("\n--torch annotations: " + "; ".join("%s: %s" % x for x in marks))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
