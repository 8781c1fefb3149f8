#!/usr/bin/env python3
# amdahl.load (profiler/python/amdahl): profiles cpu_pipeline with the build's amdahl, loads the
# profile from the build's share/amdahl/python and checks the report dicts, the stage totals and
# the per-step table against `amdahl report --format json/csv`; how the command is found
# (beside the package, AMDAHL_BIN, errors). The plain lists are checked always (pandas hidden),
# the DataFrames only where pandas imports (scripts/setup.sh installs it when pip can).
# Exits 77 when a binary is missing.
import json
import os
import subprocess
import sys
import tempfile

failures = []


def skip(msg):
    print("SKIP: " + msg)
    sys.exit(77)


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def main():
    build = os.environ.get("AMDAHL_BUILD_DIR")
    if not build:
        skip("AMDAHL_BUILD_DIR is not set")
    amdahl_bin = os.path.join(build, "bin", "amdahl")
    pipeline = os.path.join(build, "bin", "cpu_pipeline")
    pkg_dir = os.path.join(build, "share", "amdahl", "python")
    for f in (amdahl_bin, pipeline, os.path.join(build, "lib", "libamdahl_collector.so"),
              os.path.join(pkg_dir, "amdahl", "__init__.py")):
        if not os.path.exists(f):
            skip(f + " is not built")
    os.environ.pop("AMDAHL_BIN", None)
    sys.path.insert(0, pkg_dir)
    import amdahl

    with tempfile.TemporaryDirectory(prefix="amdahl-pyload-") as tmp:
        return run(amdahl, amdahl_bin, pipeline, tmp)


def run(amdahl, amdahl_bin, pipeline, tmp):
    prof = os.path.join(tmp, "run.amdahl")
    subprocess.run([amdahl_bin, "profile", "-o", prof, "--", pipeline, "--steps", "8",
                    "--loader-threads", "2", "--cost", "sleep"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    # The command is found beside the package (build/share/amdahl/python -> build/bin).
    check(os.path.samefile(amdahl.find_amdahl(), amdahl_bin), "find_amdahl() finds the build's bin/amdahl")

    r = amdahl.load(prof)
    expected = json.loads(subprocess.run([amdahl_bin, "report", prof, "--format", "json"],
                                         check=True, stdout=subprocess.PIPE).stdout)
    check(isinstance(r, dict), "load() returns a dict")
    check(dict(r) == expected, "the dict is `amdahl report --format json`")
    check(r["steps"] > 0 and r["wall_ns"] > 0, "steps %s, wall_ns %s" % (r.get("steps"), r.get("wall_ns")))

    # The plain path always (pandas hidden), the DataFrame path where pandas imports.
    real_pandas = amdahl._pandas
    amdahl._pandas = lambda: None
    stages, steps = r.stages, r.steps
    amdahl._pandas = real_pandas
    check(isinstance(stages, list) and all(isinstance(s, dict) for s in stages),
          "without pandas .stages is a list of dicts")
    check(isinstance(steps, list) and all(isinstance(s, dict) for s in steps),
          "without pandas .steps is a list of dicts")
    try:
        import pandas
    except ImportError:
        pandas = None
        print("note: pandas is not installed: the DataFrame path is not checked here")
    if pandas is not None:
        check(isinstance(r.stages, pandas.DataFrame), "with pandas .stages is a DataFrame")
        check(isinstance(r.steps, pandas.DataFrame), "with pandas .steps is a DataFrame")
        # (a column some stages lack is NaN in the frame, absent in the dicts)
        check(list(r.stages["name"]) == [x["name"] for x in stages]
              and list(r.stages["exposed_ns"]) == [x["exposed_ns"] for x in stages],
              "the stages DataFrame holds the plain rows")
        check(r.steps.to_dict("records") == steps, "the steps DataFrame holds the plain rows")
        check(list(r.steps.columns) == list(steps[0].keys()), "the steps DataFrame has the CSV's columns")
    stage_rows, step_rows = stages, steps

    names = [s["name"] for s in stage_rows]
    check(names == [s["name"] for s in expected["stages"]], "stage rows in the report's order: %s" % names)
    check("disk_io" in names and "cpu_preprocess" in names, "cpu_pipeline's stages are there")
    for row, want in zip(stage_rows, expected["stages"]):
        for key in ("exposed_ns", "fraction", "total_ns", "hidden_ns"):
            if row.get(key) != want.get(key):
                check(False, "stage %s %s: %r != %r" % (want["name"], key, row.get(key), want.get(key)))
    check(abs(sum(s["fraction"] for s in stage_rows) - 1.0) < 1e-6, "stage fractions sum to 1")
    check(any(k.startswith("per_step_exposed.") for k in stage_rows[0]), "nested figures become dotted columns")

    check(len(step_rows) == r["steps"], "one per-step row per analysed step (%d rows, %d steps)"
          % (len(step_rows), r["steps"]))
    csv_text = subprocess.run([amdahl_bin, "report", prof, "--format", "csv"], check=True,
                              stdout=subprocess.PIPE, universal_newlines=True).stdout
    header = csv_text.splitlines()[0].split(",")
    check(list(step_rows[0].keys()) == header, "per-step columns are the CSV's: %s" % header)
    check(all(isinstance(row["span_ns"], int) for row in step_rows), "numbers are numbers, not strings")
    span = sum(row["span_ns"] for row in step_rows)
    check(abs(span - r["wall_ns"]) <= 0.01 * r["wall_ns"],
          "the steps' spans add up to wall_ns (%d vs %d)" % (span, r["wall_ns"]))

    # Options reach the command: --warmup 0 analyses every step.
    r0 = amdahl.load(prof, warmup=0)
    check(r0["warmup_steps"] == 0 and len(r0.steps) == r0["steps"], "load(warmup=0) passes --warmup 0")

    # AMDAHL_BIN wins; a wrong one is a clear error.
    os.environ["AMDAHL_BIN"] = amdahl_bin
    check(amdahl.load(prof).amdahl_bin == amdahl_bin, "AMDAHL_BIN is used")
    os.environ["AMDAHL_BIN"] = os.path.join(tmp, "no-such-amdahl")
    try:
        amdahl.load(prof)
        check(False, "a missing AMDAHL_BIN raises AmdahlError")
    except amdahl.AmdahlError as e:
        check("AMDAHL_BIN" in str(e), "a missing AMDAHL_BIN raises AmdahlError: %s" % e)
    os.environ.pop("AMDAHL_BIN")

    # A missing profile, and a file that is not a profile (the command's one-line error).
    try:
        amdahl.load(os.path.join(tmp, "missing.amdahl"))
        check(False, "a missing profile raises FileNotFoundError")
    except FileNotFoundError:
        check(True, "a missing profile raises FileNotFoundError")
    junk = os.path.join(tmp, "junk.amdahl")
    with open(junk, "w") as f:
        f.write("not a profile\n")
    try:
        amdahl.load(junk)
        check(False, "a corrupt profile raises AmdahlError")
    except amdahl.AmdahlError as e:
        check(str(e).startswith("amdahl: error:"), "a corrupt profile raises AmdahlError: %s" % e)

    if failures:
        print("%d check(s) failed" % len(failures))
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
