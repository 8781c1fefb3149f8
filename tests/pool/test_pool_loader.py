#!/usr/bin/env python3
# End-to-end test of a thread-pool loader (issue 17, item 3): pool_loader.py (a
# ThreadPoolExecutor whose threads run annotated disk_io / cpu_preprocess per item, the main
# thread's steps wait on the futures) profiled with pool sizes 1 and 4, serial (each step submits
# its batch and waits) and pipelined (one batch submitted ahead). Checks:
#  * the report of every profile: `other` under 2% of the step (the pool threads' idle gaps
#    between tasks are waits, not unannotated work), the verdict not "unannotated", the
#    critical path as the basis (its unscaled replay reproduced the run within 0.5%);
#  * `validate pool1 pool4`: simulated within 10% of the measured speedup;
#  * the idle gaps move with the driving thread: `validate` from a 12 ms to a 6 ms training
#    stage at pool size 4 (serial), within 10% (1.00x predicted for 1.46x measured when the gaps
#    were fixed work);
#  * `whatif pool1 --workers 4` within 10% of the measured pool-4 run (serial case, --prefetch 1
#    for the pipelined one, whose program submits one batch ahead).
# Costs are sleeps to absolute deadlines (pool_loader.py --cost sleep): ground truth on a busy
# 2-core machine. Exits 77 (skip) without amdahl, the collector or the `nvtx` package.
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "pool_loader.py")
failures = []
COMMON = ["--steps", "30", "--batch", "4", "--disk-ms", "3", "--cpu-ms", "5", "--train-ms", "12", "--marks"]


def skip(msg):
    print("SKIP: " + msg)
    sys.exit(77)


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def run_json(args):
    out = subprocess.run(args + ["--format", "json"], capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stderr[-2000:])
        return None
    return json.loads(out.stdout)


def main():
    build = os.environ.get("AMDAHL_BUILD_DIR") or os.path.join(HERE, "..", "..", "build")
    amdahl = os.path.join(build, "bin", "amdahl")
    if not os.access(amdahl, os.X_OK):
        skip("%s is not built" % amdahl)
    if not os.path.exists(os.path.join(build, "lib", "libamdahl_collector.so")):
        skip("the collector is not built")
    try:
        import nvtx  # noqa: F401
    except ImportError:
        skip("the nvtx Python package is missing (pip install nvtx; scripts/setup.sh does it)")
    work = tempfile.mkdtemp(prefix="amdahl-pool-test-")

    def profile(name, extra):
        path = os.path.join(work, name + ".amdahl")
        r = subprocess.run([amdahl, "profile", "-o", path, "--force", "--", sys.executable, SCRIPT] + COMMON + extra,
                           capture_output=True, text=True)
        check(r.returncode == 0, "%s: profiled run exits 0%s" % (name, "" if r.returncode == 0 else " (%s)" % r.stderr[-400:]))
        return path

    def report(name, path):
        r = run_json([amdahl, "report", path])
        check(r is not None, "%s: report" % name)
        if r is None:
            return None
        other = next(s["fraction"] for s in r["stages"] if s["name"] == "other")
        print("     %s: %.2f ms/step, other %.2f%%, verdict: %s" %
              (name, r["step_stats"]["mean_ns"] / 1e6, 100 * other, r["verdict"]))
        check(r["exposed_basis"] == "critical_path", "%s: the critical path is the basis (replay exact at factor 1)" % name)
        check(other < 0.02, "%s: other %.2f%% < 2%% of the step" % (name, 100 * other))
        check(not r["verdict"].startswith("unannotated"), "%s: verdict is not 'unannotated'" % name)
        return r

    def other_fraction(path):
        r = run_json([amdahl, "report", path])
        return None if r is None else next(s["fraction"] for s in r["stages"] if s["name"] == "other")

    def profile_steady(name, extra):
        # A loaded machine stretches the Python between the ranges (scheduling delays land in
        # `other`: CI once saw 5.3% for 1.3% unloaded, 3 runs in a row, steps at 21.6 ms median
        # and 27.2 ms p95 for ~20 ms). So a profile whose `other` is over the bound is made
        # again, up to twice, before report() checks it: a real regression fails all three.
        path = profile(name, extra)
        for _ in range(2):
            other = other_fraction(path)
            if other is None or other < 0.02:
                break
            print("     %s: other %.2f%%: profiled again (a loaded machine?)" % (name, 100 * other))
            path = profile(name, extra)
        return path

    def validate(what, base, improved, tol=0.10):
        v = run_json([amdahl, "validate", base, improved])
        check(v is not None, "%s: validate runs" % what)
        if v is None:
            return
        print("     %s: measured %.3fx, simulated %.3fx (%+.1f%%), classic %.3fx (%+.1f%%)" %
              (what, v["measured_speedup"], v["predicted_simulated"], 100 * v["simulated_error"],
               v["predicted_naive"], 100 * v["naive_error"]))
        check(abs(v["simulated_error"]) < tol, "%s: simulated within %d%% (%+.1f%%)" % (what, 100 * tol, 100 * v["simulated_error"]))

    def workers_whatif(what, base, base_report, improved_report, extra):
        w = run_json([amdahl, "whatif", base, "--workers", "4"] + extra)
        check(w is not None, "%s: whatif --workers 4 runs" % what)
        if w is None or base_report is None or improved_report is None:
            return
        measured = base_report["step_stats"]["mean_ns"] / improved_report["step_stats"]["mean_ns"]
        err = w["simulated_speedup"] / measured - 1
        print("     %s: whatif --workers 4 %s: %.3fx for %.3fx measured (%+.1f%%)" %
              (what, " ".join(extra), w["simulated_speedup"], measured, 100 * err))
        check(abs(err) < 0.10, "%s: whatif --workers 4 within 10%% of measured (%+.1f%%)" % (what, 100 * err))

    for mode, prefetch, whatif_extra in (("serial", "0", []), ("pipelined", "1", ["--prefetch", "1"])):
        print("== %s (--prefetch %s)" % (mode, prefetch))
        p1 = profile_steady(mode + "-pool1", ["--pool", "1", "--prefetch", prefetch])
        p4 = profile_steady(mode + "-pool4", ["--pool", "4", "--prefetch", prefetch])
        r1 = report(mode + "-pool1", p1)
        r4 = report(mode + "-pool4", p4)
        if r1 is not None and mode == "serial":  # (pipelined pool 1 is loader bound: never idle)
            notes = " ".join(r1.get("notes", []))
            check("idle gaps" in notes and "loader thread" in notes, "%s-pool1: a note counts the pool's idle gaps" % mode)
        validate(mode + ": validate pool 1 -> 4", p1, p4)
        workers_whatif(mode, p1, r1, r4, whatif_extra)
        if mode == "serial":
            p4t = profile("serial-pool4-train6", ["--pool", "4", "--prefetch", prefetch, "--train-ms", "6"])
            validate("serial pool 4: validate train 12 -> 6 ms", p4, p4t)
    if failures:
        print("%d check(s) failed; profiles kept in %s" % (len(failures), work))
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
