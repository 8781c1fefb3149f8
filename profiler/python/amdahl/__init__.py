"""amdahl profiles in Python (notebooks, scripts).

    import amdahl
    r = amdahl.load("run.amdahl")
    r["wall_ns"], r["verdict"]      # the report: `amdahl report --format json`, as plain dicts
    r.stages                        # stage totals: a pandas DataFrame, or a list of dicts
    r.steps                         # the per-step table (`--format csv`): DataFrame or list of dicts

The analysis is the `amdahl` command's own: this module runs it and parses its output, so the
figures are the same as in `amdahl report`. The command is found through $AMDAHL_BIN, then next
to this package (an install's PREFIX/share/amdahl/python -> PREFIX/bin/amdahl, and the build
tree alike), then on PATH. pandas is optional: without it the tables are lists of dicts.
"""

import csv
import io
import json
import os
import shutil
import subprocess

__all__ = ["load", "find_amdahl", "Report", "AmdahlError"]


class AmdahlError(RuntimeError):
    """The amdahl command is missing or refused the profile (its one-line error is the message)."""


def find_amdahl():
    """The path of the amdahl command: $AMDAHL_BIN, <package>/../../../../bin/amdahl, or PATH."""
    env = os.environ.get("AMDAHL_BIN")
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        raise AmdahlError("AMDAHL_BIN=%s is not an executable file" % env)
    here = os.path.dirname(os.path.abspath(__file__))
    # <prefix>/share/amdahl/python/amdahl -> <prefix>/bin/amdahl
    beside = os.path.normpath(os.path.join(here, "..", "..", "..", "..", "bin", "amdahl"))
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    on_path = shutil.which("amdahl")
    if on_path:
        return on_path
    raise AmdahlError("the amdahl command was not found (not at %s, not on PATH); "
                      "set AMDAHL_BIN to its path" % beside)


def _pandas():
    try:
        import pandas  # noqa: F401  (optional)
        return pandas
    except ImportError:
        return None


def _flatten(row):
    """One level of nesting becomes dotted columns (amdahl.2x, per_step_exposed.mean)."""
    out = {}
    for key, value in row.items():
        if isinstance(value, dict):
            for sub, v in value.items():
                if not isinstance(v, (dict, list)):
                    out["%s.%s" % (key, sub)] = v
        elif not isinstance(value, list):
            out[key] = value
    return out


def _number(text):
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


class Report(dict):
    """The report as plain dicts (the JSON of `amdahl report`), plus two tables.

    .stages  stage totals, one row per stage (name, kind, exposed_ns, fraction, total_ns,
             hidden_ns, ...; nested figures as dotted columns)
    .steps   the per-step table, one row per analysed step (step, start_ns, span_ns and
             <stage>_exposed_ns per stage), read from `amdahl report --format csv` on first use
    Both are pandas DataFrames when pandas is installed, lists of dicts otherwise.
    """

    def __init__(self, data, path, amdahl_bin, args):
        super().__init__(data)
        self.path = path
        self.amdahl_bin = amdahl_bin
        self._args = list(args)
        self._steps = None

    def _table(self, rows):
        pd = _pandas()
        return pd.DataFrame(rows) if pd is not None else rows

    @property
    def stages(self):
        return self._table([_flatten(s) for s in self.get("stages", [])])

    @property
    def steps(self):
        if self._steps is None:
            text = _run(self.amdahl_bin, self.path, "csv", self._args)
            self._steps = [{k: _number(v) for k, v in row.items()}
                           for row in csv.DictReader(io.StringIO(text))]
        return self._table(list(self._steps))


def _run(amdahl_bin, path, fmt, args):
    cmd = [amdahl_bin, "report", path, "--format", fmt] + list(args)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    if proc.returncode != 0:
        lines = [l for l in proc.stderr.splitlines() if l.strip()]
        raise AmdahlError(lines[-1] if lines else "%s exited with code %d" % (" ".join(cmd), proc.returncode))
    return proc.stdout


def load(path, stages=None, warmup=None, step_name=None, amdahl_bin=None):
    """Analyse the profile at `path` with the amdahl command and return its report.

    stages, warmup and step_name are `amdahl report`'s --stages FILE, --warmup N|auto and
    --step-name NAME. Raises FileNotFoundError for a missing profile and AmdahlError when the
    command is missing or refuses the profile.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(path)
    args = []
    if stages is not None:
        args += ["--stages", os.fspath(stages)]
    if warmup is not None:
        args += ["--warmup", str(warmup)]
    if step_name is not None:
        args += ["--step-name", step_name]
    binary = amdahl_bin or find_amdahl()
    data = json.loads(_run(binary, path, "json", args))
    return Report(data, path, binary, args)
