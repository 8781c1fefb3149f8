#!/usr/bin/env python3
# End-to-end test of `amdahl profile --torch` on the stand-in torch (fake_torch/): runs
# train_fake.py plain and under the profiler, checks that its output is unchanged, then reads the
# profile (sqlite3) and the report (JSON): stages, produce/consume payloads, step count,
# outermost-only forward, worker parts (fork and spawn), the uncovered marks; and `whatif
# --workers 4` on a num_workers=0 profile against a measured num_workers=4 run. Exits 77 (skip)
# when amdahl, the collector or the `nvtx` Python package is missing.
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE = os.path.join(HERE, "fake_torch")
SCRIPT = os.path.join(HERE, "train_fake.py")
failures = []


def skip(msg):
    print("SKIP: " + msg)
    sys.exit(77)


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def env_with(pythonpath):
    env = dict(os.environ)
    env["PYTHONPATH"] = pythonpath
    env.pop("AMDAHL_TORCH", None)
    return env


def main():
    build = os.environ.get("AMDAHL_BUILD_DIR") or os.path.join(HERE, "..", "..", "build")
    amdahl = os.path.join(build, "bin", "amdahl")
    collector = os.path.join(build, "lib", "libamdahl_collector.so")
    if not os.access(amdahl, os.X_OK):
        skip("%s is not built" % amdahl)
    if not os.path.exists(collector):
        skip("%s is not built" % collector)
    try:
        import nvtx  # noqa: F401
    except ImportError:
        skip("the nvtx Python package is missing (pip install nvtx; scripts/setup.sh does it)")
    help_text = subprocess.run([amdahl, "profile", "--help"], capture_output=True, text=True).stdout
    if "--torch" not in help_text:
        skip("this amdahl has no `profile --torch`")

    work = tempfile.mkdtemp(prefix="amdahl-torch-test-")
    data = os.path.join(work, "data")
    base_args = ["--data", data, "--samples", "24", "--batch", "4", "--epochs", "2"]
    # 6 batches per epoch; the last epoch stops after 3: 9 optimizer steps, and one more batch is
    # fetched (the partial step).
    cases = [
        ("w2_pin_fork", ["--workers", "2", "--pin", "--break-after", "3"], 9, True),
        ("w2_spawn", ["--workers", "2", "--context", "spawn"], 12, True),
        ("w0", ["--workers", "0", "--break-after", "3"], 9, False),
    ]
    for name, extra, opt_steps, workers in cases:
        print("== case %s" % name)
        args = [sys.executable, SCRIPT] + base_args + extra
        plain = subprocess.run(args, capture_output=True, text=True, env=env_with(FAKE), cwd=work)
        check(plain.returncode == 0, "%s: plain run exits 0 (%s)" % (name, plain.stderr[-300:]))
        prof = os.path.join(work, name + ".amdahl")
        run = subprocess.run([amdahl, "profile", "--torch", "-o", prof, "--force", "--"] + args,
                             capture_output=True, text=True, env=env_with(FAKE), cwd=work)
        check(run.returncode == 0, "%s: profiled run exits 0 (%s)" % (name, run.stderr[-500:]))
        check(run.stdout == plain.stdout, "%s: the script's output is unchanged" % name)
        check("optimizer steps: %d" % opt_steps in plain.stdout, "%s: %d optimizer steps" % (name, opt_steps))
        if run.returncode != 0:
            continue
        check_profile(name, prof, opt_steps, workers, extra)
        check_report(amdahl, name, prof, workers)
    check_own_step(amdahl, work, base_args)
    check_auto(amdahl, work, base_args)
    check_workers_whatif(amdahl, work)
    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


def check_profile(name, prof, opt_steps, workers, extra):
    db = sqlite3.connect(prof)
    main_pid = int(db.execute("SELECT value FROM meta WHERE key='pid'").fetchone()[0])
    torch_meta = db.execute("SELECT value FROM meta WHERE key='torch'").fetchone()
    check(torch_meta is not None and torch_meta[0] != "missing", "%s: meta torch = package dir" % name)
    ranges = db.execute("SELECT pid, tid, name, start_ns, end_ns, kind, unclosed FROM ranges_named "
                        "WHERE domain='amdahl'").fetchall()
    marks = db.execute("SELECT pid, tid, name, ts_ns, payload_kind, payload_int FROM marks_named "
                       "WHERE domain='amdahl' ORDER BY ts_ns").fetchall()
    main_tid = main_pid  # the main thread's tid is the pid
    by_name = Counter(r[2] for r in ranges)
    for stage in ("step", "cpu_preprocess", "disk_io", "h2d", "gpu_compute"):
        check(by_name[stage] > 0, "%s: %s ranges present (%d)" % (name, stage, by_name[stage]))

    # Steps: on the main thread, start/end, one per optimizer step plus the marked partial ones.
    steps = [r for r in ranges if r[2] == "step"]
    check(all(r[0] == main_pid and r[1] == main_tid and r[5] == "start_end" for r in steps),
          "%s: every step is a start/end range on the main thread" % name)
    check(not any(r[6] for r in steps), "%s: no step left unclosed" % name)
    partial = [m for m in marks if m[2] == "torch.partial_step"]
    full = [s for s in steps if not any(s[3] <= m[3] <= s[4] for m in partial)]
    check(len(full) == opt_steps, "%s: %d full steps == %d optimizer steps" % (name, len(full), opt_steps))
    check(all(steps[i][4] <= steps[i + 1][3] for i in range(len(steps) - 1)), "%s: steps do not overlap" % name)

    # gpu_compute: zero_grad, forward (outermost only: Sequential, not its Linear/Scale),
    # backward, optimizer step = 4 per step, all on the main thread, none in workers.
    gc = [r for r in ranges if r[2] == "gpu_compute"]
    check(len(gc) == 4 * opt_steps, "%s: %d gpu_compute ranges == 4 x %d" % (name, len(gc), opt_steps))
    check(all(r[0] == main_pid for r in gc), "%s: gpu_compute only in the main process" % name)

    # h2d: the model's .to("cuda") (1 parameter) + x.to + y.cuda per step; with --pin, the
    # pin-memory thread's pin_memory(batch) too (one per batch, on another thread).
    h2d_main = [r for r in ranges if r[2] == "h2d" and r[0] == main_pid and r[1] == main_tid]
    check(len(h2d_main) == 1 + 2 * opt_steps, "%s: %d h2d ranges on the main thread == 1 + 2 x %d"
          % (name, len(h2d_main), opt_steps))
    if "--pin" in extra:
        h2d_pin = [r for r in ranges if r[2] == "h2d" and r[0] == main_pid and r[1] != main_tid]
        check(len(h2d_pin) >= opt_steps, "%s: pin-memory thread h2d ranges (%d)" % (name, len(h2d_pin)))

    cpu = [r for r in ranges if r[2] == "cpu_preprocess"]
    disk = [r for r in ranges if r[2] == "disk_io"]
    produce = [m for m in marks if m[2] == "produce"]
    consume = [m for m in marks if m[2] == "consume"]
    if workers:
        wpids = {r[0] for r in cpu}
        check(main_pid not in wpids and len(wpids) >= 2, "%s: cpu_preprocess in >= 2 worker processes" % name)
        check({r[0] for r in disk} <= wpids, "%s: disk_io in the workers" % name)
        # Each disk_io lies inside a cpu_preprocess of its thread (file reads inside the fetch).
        inside = all(any(c[0] == d[0] and c[1] == d[1] and c[3] <= d[3] and d[4] <= c[4] for c in cpu) for d in disk)
        check(inside, "%s: every disk_io is nested in a cpu_preprocess" % name)
        check(len(disk) == 4 * len(cpu), "%s: one disk_io per sample (%d for %d batches)" % (name, len(disk), len(cpu)))
        check(all(m[4] == "int64" for m in produce + consume), "%s: produce/consume carry int64 payloads" % name)
        check(all(m[0] != main_pid for m in produce), "%s: produce marks in the workers" % name)
        check(all(m[0] == main_pid and m[1] == main_tid for m in consume), "%s: consume marks on the main thread" % name)
        # Every consume n follows a produce n (latest before it), and in order 0,1,2,... per epoch.
        linked = True
        for c in consume:
            if not any(p[5] == c[5] and p[3] <= c[3] for p in produce):
                linked = False
        check(linked, "%s: every consume has an earlier produce with the same payload" % name)
        payloads = [c[5] for c in consume]
        check(payloads[:6] == list(range(6)), "%s: first epoch consumes 0..5 in order (%s)" % (name, payloads))
        check(len(consume) >= opt_steps, "%s: %d consumes for %d steps" % (name, len(consume), opt_steps))
        waits = [r for r in ranges if r[2] == "wait" and r[0] == main_pid and r[1] == main_tid]
        check(len(waits) >= len(consume), "%s: a wait range per batch fetch on the main thread" % name)
    else:
        check(all(r[0] == main_pid and r[1] == main_tid for r in cpu + disk),
              "%s: w0: cpu_preprocess and disk_io on the main thread" % name)
        check(not produce and not consume, "%s: w0: no produce/consume marks" % name)
        check(not any(r[2] == "wait" for r in ranges), "%s: w0: no wait ranges" % name)
    uncovered = sorted({m[2] for m in marks if m[2].startswith("torch.uncovered:")})
    check(uncovered == ["torch.uncovered:grad_scaler_step"],
          "%s: uncovered marks name what the stand-in lacks (%s)" % (name, uncovered))
    ann = {m[2] for m in marks if m[2].startswith("torch.annotations:")}
    check(ann == {"torch.annotations:nvtx"}, "%s: annotations mark says the nvtx backend (%s)" % (name, ann))


def check_report(amdahl, name, prof, workers):
    r = subprocess.run([amdahl, "report", prof, "--format", "json"], capture_output=True, text=True)
    check(r.returncode == 0, "%s: amdahl report exits 0 (%s)" % (name, r.stderr[-300:]))
    if r.returncode != 0:
        return
    rep = json.loads(r.stdout)
    names = {s["name"] for s in rep["stages"]}
    for stage in ("disk_io", "cpu_preprocess", "h2d", "gpu_compute"):
        check(stage in names, "%s: report has stage %s" % (name, stage))
    check(rep["steps"] >= 5, "%s: report analyses %d steps" % (name, rep["steps"]))
    if workers:
        check(rep["bounds"] is False, "%s: waits linked through produce/consume (bounds false)" % name)
    exposed = {s["name"]: s["fraction"] for s in rep["stages"]}
    print("     %s: steps %d/%d, exposed %s" % (name, rep["steps"], rep["total_steps"],
          ", ".join("%s %.2f" % kv for kv in sorted(exposed.items()))))


def check_own_step(amdahl, work, base_args):
    # A script that pushes its own `step` range, under --torch: two step ranges per iteration
    # (its own, and the hooks' inside it). The report counts one step per iteration and says so;
    # the GPU schedule counts one too (AMDAHL_GPU_MARKS=always marks windows without CUDA).
    print("== case own_step")
    prof = os.path.join(work, "own_step.amdahl")
    args = [sys.executable, SCRIPT] + base_args + ["--workers", "0", "--own-step"]
    env = env_with(FAKE)
    env["AMDAHL_GPU_MARKS"] = "always"
    run = subprocess.run([amdahl, "profile", "--torch", "--gpu-sample", "2/4@3", "-o", prof, "--force", "--"] + args,
                         capture_output=True, text=True, env=env, cwd=work)
    check(run.returncode == 0, "own_step: profiled run exits 0 (%s)" % run.stderr[-500:])
    if run.returncode != 0:
        return
    db = sqlite3.connect(prof)
    marks = [(n, p) for n, p in db.execute(
        "SELECT name, payload_int FROM marks_named WHERE domain='amdahl' AND name LIKE 'gpu_trace_%' ORDER BY ts_ns")]
    # 12 iterations, one counted step each: 2/4@3 closes the start-up window at step 3, opens at
    # 7 and 11, closes at 9.
    want = [("gpu_trace_off", 3), ("gpu_trace_on", 7), ("gpu_trace_off", 9), ("gpu_trace_on", 11)]
    check(marks == want, "own_step: the schedule counts one step per iteration (%s)" % marks)
    r = subprocess.run([amdahl, "report", prof, "--format", "json"], capture_output=True, text=True)
    check(r.returncode == 0, "own_step: report exits 0 (%s)" % r.stderr[-300:])
    if r.returncode != 0:
        return
    rep = json.loads(r.stdout)
    notes = " ".join(rep.get("notes", []))
    check("overlap an earlier step range" in notes, "own_step: the report says the nested steps were set aside")
    run_steps = rep.get("gpu_sampling", {}).get("run_steps", rep.get("total_steps"))
    check(run_steps == 12, "own_step: 12 steps in the run, not 24 (%s)" % run_steps)


def meta_of(prof):
    db = sqlite3.connect(prof)
    return dict(db.execute("SELECT key, value FROM meta").fetchall())


def amdahl_ranges(prof):
    db = sqlite3.connect(prof)
    return Counter(r[0] for r in db.execute("SELECT name FROM ranges_named WHERE domain='amdahl'"))


def check_auto(amdahl, work, base_args):
    # Issue 19, item 1: a Python command with no flag is annotated (one line says so); through
    # /usr/bin/env, `python -m`, a #! script and a launcher named torchrun too; --no-torch turns
    # it off; where it cannot (python -I, the package missing) one line says why.
    print("== case auto")
    args = base_args + ["--workers", "0", "--break-after", "3"]
    shutil.copy(SCRIPT, os.path.join(work, "train_fake_mod.py"))
    exec_script = os.path.join(work, "train_fake_exec.py")  # its #! line is /usr/bin/env python3
    shutil.copy(SCRIPT, exec_script)
    os.chmod(exec_script, 0o755)
    bindir = os.path.join(work, "bin")
    os.makedirs(bindir, exist_ok=True)
    launcher = os.path.join(bindir, "torchrun")  # a stand-in launcher: a Python script that runs the next one
    with open(launcher, "w") as f:
        f.write("#!/usr/bin/env python3\nimport runpy, sys\nsys.argv = sys.argv[1:]\n"
                "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    os.chmod(launcher, 0o755)
    env = env_with(FAKE)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    variants = [
        ("python", [sys.executable, SCRIPT], "python"),
        ("env", ["/usr/bin/env", "python3", SCRIPT], "env python3"),
        ("module", [sys.executable, "-m", "train_fake_mod"], "python"),
        ("shebang", [exec_script], "train_fake_exec.py (#!"),
        ("torchrun", ["torchrun", SCRIPT], "torchrun (a Python launcher)"),
    ]
    for name, cmd, what in variants:
        if name == "env" and not os.access("/usr/bin/env", os.X_OK):
            continue
        prof = os.path.join(work, "auto_%s.amdahl" % name)
        run = subprocess.run([amdahl, "profile", "-o", prof, "--force", "--"] + cmd + args,
                             capture_output=True, text=True, env=env, cwd=work)
        check(run.returncode == 0, "auto %s: profiled run exits 0 (%s)" % (name, run.stderr[-400:]))
        if run.returncode != 0:
            continue
        lines = [l for l in run.stderr.splitlines() if "PyTorch annotation on" in l]
        check(len(lines) == 1 and what in lines[0],
              "auto %s: one line says the annotation is on (%s)" % (name, lines))
        check("PyTorch annotations: on in 1 process(es)" in run.stderr, "auto %s: the summary says torch was annotated" % name)
        meta = meta_of(prof)
        check(meta.get("torch_enabled_by") == "python command" and meta.get("torch", "missing") not in ("missing", "off"),
              "auto %s: meta torch = package dir, enabled by the python command (%s)" % (name, meta.get("torch")))
        stages = amdahl_ranges(prof)
        check(stages["step"] >= 9 and stages["gpu_compute"] == 4 * 9 and stages["cpu_preprocess"] > 0,
              "auto %s: annotated like --torch (steps %d, gpu_compute %d)" % (name, stages["step"], stages["gpu_compute"]))

    prof = os.path.join(work, "auto_off.amdahl")
    run = subprocess.run([amdahl, "profile", "--no-torch", "-o", prof, "--force", "--", sys.executable, SCRIPT] + args,
                         capture_output=True, text=True, env=env_with(FAKE), cwd=work)
    check(run.returncode == 0, "no-torch: profiled run exits 0 (%s)" % run.stderr[-300:])
    check("PyTorch annotation" not in run.stderr, "no-torch: nothing said about the annotation")
    check(meta_of(prof).get("torch") == "off", "no-torch: meta torch = off")
    check(sum(amdahl_ranges(prof).values()) == 0, "no-torch: no amdahl ranges (%s)" % dict(amdahl_ranges(prof)))
    r = subprocess.run([amdahl, "report", prof], capture_output=True, text=True)
    check(r.returncode == 2 and "no GPU records either" in r.stderr,
          "no-torch: report without ranges or GPU records is bad input (exit %d: %s)" % (r.returncode, r.stderr.strip()))

    run = subprocess.run([amdahl, "profile", "--torch", "--no-torch", "-o", prof, "--force", "--", sys.executable,
                          "-c", "pass"], capture_output=True, text=True, env=env_with(FAKE), cwd=work)
    check(run.returncode == 1 and "exclude each other" in run.stderr, "--torch --no-torch: usage error (exit %d)" % run.returncode)

    run = subprocess.run([amdahl, "profile", "-o", prof, "--force", "--", sys.executable, "-I", "-c", "pass"],
                         capture_output=True, text=True, env=env_with(FAKE), cwd=work)
    check(run.returncode == 0 and "cannot annotate PyTorch: -I (isolated mode) ignores PYTHONPATH" in run.stderr,
          "python -I: one line says why not (%s)" % run.stderr.strip()[:300])
    check(meta_of(prof).get("torch", "").startswith("unavailable: -I"), "python -I: meta torch = unavailable")
    blocked = [([sys.executable, "-E", "-c", "pass"], "-E ignores PYTHONPATH"),
               ([sys.executable, "-uS", "-c", "pass"], "-S skips sitecustomize"),
               (["/usr/bin/env", "-i", sys.executable, "-c", "pass"], "env -i clears the environment")]
    for cmd, why in blocked:
        if cmd[0] == "/usr/bin/env" and not os.access(cmd[0], os.X_OK):
            continue
        run = subprocess.run([amdahl, "profile", "-o", prof, "--force", "--"] + cmd,
                             capture_output=True, text=True, env=env_with(FAKE), cwd=work)
        check(run.returncode == 0 and "cannot annotate PyTorch: " + why in run.stderr,
              "%s: one line says why not" % " ".join(cmd[-4:]))

    # A copy of amdahl whose share/amdahl/python is missing (its lib/ is the build's).
    copy = os.path.join(work, "nopkg")
    os.makedirs(os.path.join(copy, "bin"), exist_ok=True)
    shutil.copy(amdahl, os.path.join(copy, "bin", "amdahl"))
    if not os.path.exists(os.path.join(copy, "lib")):
        os.symlink(os.path.join(os.path.dirname(os.path.dirname(amdahl)), "lib"), os.path.join(copy, "lib"))
    run = subprocess.run([os.path.join(copy, "bin", "amdahl"), "profile", "-o", prof, "--force", "--", sys.executable,
                          "-c", "pass"], capture_output=True, text=True, env=env_with(FAKE), cwd=work)
    check(run.returncode == 0 and "cannot annotate PyTorch: the amdahl_torch package" in run.stderr,
          "package missing: one line says why not (%s)" % run.stderr.strip()[:300])
    check(meta_of(prof).get("torch") == "missing", "package missing: meta torch = missing")


def check_workers_whatif(amdahl, work):
    # Issue 4: `whatif --workers 4` on the num_workers=0 profile against the measured
    # num_workers=4 run. Batches of 16 samples (48 ms of sleep each) keep the 4-worker run input
    # bound, so its speed does not hang on how fast this machine runs the main thread's Python
    # next to 4 worker processes (with batches of 4 the 4-worker run is bound by the main thread,
    # and the prediction, which assumes a free core per worker, missed by up to 19% on a loaded
    # 2-core VM). Timing on a shared machine: up to 3 attempts (a pair of runs each), one within
    # 10% passes; every attempt is printed.
    print("== case workers_whatif")
    data = os.path.join(work, "data16")
    results = []
    for attempt in range(3):
        r = workers_attempt(amdahl, work, data)
        if r is None:
            return
        results.append(r)
        measured, predicted, w = r
        print("     workers_whatif attempt %d: measured %.3fx, --workers 4 predicts %.3fx (%+.1f%%)"
              % (attempt + 1, measured, predicted, 100 * (predicted / measured - 1)))
        if abs(predicted / measured - 1) <= 0.10:
            break
    measured, predicted, w = results[-1]
    check(w["workers"] == 4 and w["naive_speedup"] is None, "workers_whatif: JSON has workers 4, no classic figure")
    check(measured > 2.5, "workers_whatif: 4 workers measured faster than 2.5x (%.2fx)" % measured)
    check(abs(predicted / measured - 1) <= 0.10,
          "workers_whatif: --workers 4 within 10%% of the measured w0 -> w4 speedup (%.3fx vs %.3fx, attempt %d)"
          % (predicted, measured, len(results)))


def workers_attempt(amdahl, work, data):
    ms = {}
    for w in (0, 4):
        prof = os.path.join(work, "whatif_w%d.amdahl" % w)
        args = [sys.executable, SCRIPT, "--data", data, "--samples", "480", "--batch", "16", "--epochs", "1",
                "--workers", str(w)]
        run = subprocess.run([amdahl, "profile", "--torch", "-o", prof, "--force", "--"] + args,
                             capture_output=True, text=True, env=env_with(FAKE), cwd=work)
        check(run.returncode == 0, "workers_whatif: w%d profiled run exits 0 (%s)" % (w, run.stderr[-300:]))
        if run.returncode != 0:
            return None
        r = subprocess.run([amdahl, "report", prof, "--format", "json"], capture_output=True, text=True)
        rep = json.loads(r.stdout)
        ms[w] = rep["wall_ns"] / 1e6 / rep["steps"]
    r = subprocess.run([amdahl, "whatif", os.path.join(work, "whatif_w0.amdahl"), "--workers", "4", "--format", "json"],
                       capture_output=True, text=True)
    check(r.returncode == 0, "workers_whatif: whatif --workers 4 exits 0 (%s)" % r.stderr[-300:])
    if r.returncode != 0:
        return None
    w = json.loads(r.stdout)
    print("     workers_whatif: w0 %.2f ms/step, w4 %.2f ms/step" % (ms[0], ms[4]))
    return ms[0] / ms[4], w["simulated_speedup"], w

if __name__ == "__main__":
    sys.exit(main())
