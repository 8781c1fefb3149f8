#!/usr/bin/env python3
"""What a sampled profile says of its own cost, on one line, for the bench scripts: reads
`amdahl report --format json` on stdin and prints the windows' cost (gpu_sampling, see
docs/analysis.md "GPU trace windows") and, with --diagnostics, the profile's cupti.* counters.
Prints nothing for a profile without that figure.

usage: amdahl report --format json P | profile_self_cost.py [--diagnostics]
"""
import json
import sys


def main() -> int:
    try:
        j = json.load(sys.stdin)
    except ValueError:
        return 0
    g = j.get("gpu_sampling", {})
    out = []
    if "window_cost_share" in g:
        out.append("windows_cost=%+.2f%% touched=%d (%.2f ms vs %.2f)" % (
            100 * g["window_cost_share"], g["touched_steps"], g["touched_step_median_ms"],
            g["untouched_step_median_ms"]))
    if "--diagnostics" in sys.argv[1:]:
        out += ["%s=%s" % (d["key"], d["count"]) for d in j.get("diagnostics", []) if d["key"].startswith("cupti.")]
    print(" ".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
