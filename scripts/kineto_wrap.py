#!/usr/bin/env python3
"""Runs an unmodified training script under torch.profiler (Kineto), the way a user adds it:
CPU + CUDA activities over the whole run and one `prof.step()` per optimizer step (here from an
optimizer step post-hook, so the script itself is not edited), so the trace has ProfilerStep#N
ranges. Writes the Chrome trace to TRACE (.json or .json.gz).

usage: kineto_wrap.py TRACE SCRIPT [ARGS...]
"""
import gzip
import os
import runpy
import shutil
import sys

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook
from torch.profiler import ProfilerActivity, profile


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    trace, script = sys.argv[1], sys.argv[2]
    sys.argv = sys.argv[2:]
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
    prof = profile(activities=acts)
    register_optimizer_step_post_hook(lambda opt, args, kwargs: prof.step())
    with prof:
        runpy.run_path(script, run_name="__main__")
    raw = trace[:-3] if trace.endswith(".gz") else trace
    prof.export_chrome_trace(raw)
    if trace.endswith(".gz"):
        with open(raw, "rb") as f, gzip.open(trace, "wb") as g:
            shutil.copyfileobj(f, g)
        os.unlink(raw)


if __name__ == "__main__":
    main()
