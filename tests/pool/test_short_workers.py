#!/usr/bin/env python3
# End-to-end test of short-lived worker processes (issue 17, item 3): short_workers.py forks 3
# workers (multiprocessing, fork context, or os.fork) that each record 10 `cpu_preprocess`
# ranges over ~0.15 s, shorter than the collector's first flush (0.5 s), and leave by returning
# from the target (multiprocessing then calls os._exit), by os._exit, by sys.exit (interpreter
# exit) or by the parent's terminate() (SIGTERM); each profile must hold every worker's 10
# ranges. Workers killed with SIGKILL cannot write anything: the profile and the report must say
# "3 process(es) started recording and wrote no records" (launcher.lost_processes). The same
# diagnostic when the exit hook is turned off (AMDAHL_EXIT_HOOK=0) and the workers _exit.
# Exits 77 (skip) without amdahl, the collector, the exit hook library or the `nvtx` package.
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "short_workers.py")
failures = []
WORKERS, RANGES = 3, 10


def skip(msg):
    print("SKIP: " + msg)
    sys.exit(77)


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def main():
    build = os.environ.get("AMDAHL_BUILD_DIR") or os.path.join(HERE, "..", "..", "build")
    amdahl = os.path.join(build, "bin", "amdahl")
    if not os.access(amdahl, os.X_OK):
        skip("%s is not built" % amdahl)
    if not os.path.exists(os.path.join(build, "lib", "libamdahl_collector.so")):
        skip("the collector is not built")
    if not os.path.exists(os.path.join(build, "lib", "libamdahl_exit.so")):
        skip("the exit hook library is not built (sanitizer build?)")
    try:
        import nvtx  # noqa: F401
    except ImportError:
        skip("the nvtx Python package is missing (pip install nvtx; scripts/setup.sh does it)")
    work = tempfile.mkdtemp(prefix="amdahl-short-workers-")

    def profile(name, mode, env_extra=None):
        path = os.path.join(work, name + ".amdahl")
        env = dict(os.environ)
        env.update(env_extra or {})
        r = subprocess.run([amdahl, "profile", "-o", path, "--force", "--", sys.executable, SCRIPT, "--exit", mode,
                            "--workers", str(WORKERS), "--ranges", str(RANGES), "--range-ms", "15"],
                           capture_output=True, text=True, env=env)
        check(r.returncode == 0, "%s: profiled run exits 0%s" % (name, "" if r.returncode == 0 else " (%s)" % r.stderr[-500:]))
        pids = []
        for line in r.stdout.splitlines():
            if line.startswith("worker pids:"):
                pids = [int(x) for x in line.split(":")[1].split()]
        check(len(pids) == WORKERS, "%s: %d workers ran" % (name, len(pids)))
        db = sqlite3.connect(path)
        per_pid = dict(db.execute("SELECT pid, count(*) FROM ranges_named WHERE name='cpu_preprocess' GROUP BY pid"))
        diags = db.execute("SELECT pid, key, count, detail FROM diagnostics_named").fetchall()
        db.close()
        return path, pids, per_pid, diags, r.stderr

    for mode in ("return", "os_exit", "exit", "sigterm"):
        name = "exit-" + mode
        path, pids, per_pid, diags, _ = profile(name, mode)
        counts = [per_pid.get(p, 0) for p in pids]
        check(counts == [RANGES] * WORKERS, "%s: every worker's %d ranges are in the profile (%s)" % (name, RANGES, counts))
        check(not any(d[1] == "launcher.lost_processes" for d in diags), "%s: no process lost" % name)
        if mode == "sigterm":
            term = {d[0]: d[2] for d in diags if d[1] == "collector.term_signal"}
            check(all(term.get(p) == 15 for p in pids), "%s: each worker's part says SIGTERM (%s)" % (name, term))
        else:
            check(not any(d[1] == "collector.flushed_before_exit" and d[0] in pids for d in diags),
                  "%s: the workers' parts are final (not a flush)" % name)

    for name, mode, env in (("sigkill", "sigkill", None), ("os_exit-no-hook", "os_exit", {"AMDAHL_EXIT_HOOK": "0"})):
        path, pids, per_pid, diags, err = profile(name, mode, env)
        lost = [d for d in diags if d[1] == "launcher.lost_processes"]
        check(len(lost) == 1 and lost[0][2] == WORKERS, "%s: launcher.lost_processes = %d (%s)" % (name, WORKERS, lost))
        check(len(lost) == 1 and all(str(p) in lost[0][3] for p in pids), "%s: the diagnostic names the pids" % name)
        check("%d process(es) started recording and wrote no records" % WORKERS in err, "%s: amdahl profile says so" % name)
        rep = subprocess.run([amdahl, "report", path], capture_output=True, text=True)
        check(rep.returncode == 0 and "launcher.lost_processes = %d" % WORKERS in rep.stdout,
              "%s: the report's diagnostics say so" % name)
    if failures:
        print("%d check(s) failed; profiles kept in %s" % (len(failures), work))
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
