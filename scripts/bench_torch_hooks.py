#!/usr/bin/env python3
"""Per-call cost of each --torch hook wrapper (profiler/python/amdahl_torch/_hooks.py), measured
on the CPU with stand-in callables: the stand-in torch of tests/torch/fake_torch (or the real
torch with --real-torch), trivial bodies, so what is timed is the wrapper alone (plus its NVTX
calls through the `nvtx` package when installed; without a collector injected they return at once).

Each variant runs in its own process:
  off       no hooks
  fast      the hooks as shipped (nn.Module.__call__ fast path inside an outermost forward)
  all       AMDAHL_TORCH_MODULE_CALLS=all (every module call takes the general path: the
            per-call cost before issue 20)
Prints one line per hook and variant: ns of thread CPU time per call (best of --repeat: CPU time,
not wall time, so that other load on the machine counts less), and the cost per step of
a model with --modules module calls per forward.

  python3 scripts/bench_torch_hooks.py [--modules 200] [--repeat 7] [--real-torch]
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def child(args):
    if not args.real_torch:
        sys.path.insert(0, os.path.join(ROOT, "tests", "torch", "fake_torch"))
    sys.path.insert(0, os.path.join(ROOT, "profiler", "python"))
    import torch  # noqa: PLC0415
    if args.variant != "off":
        from amdahl_torch import _hooks  # noqa: PLC0415
        _hooks.install(torch)

    class Leaf(torch.nn.Module):
        def __init__(self):
            if args.real_torch:
                super().__init__()

        def forward(self, x):
            return x

    class Model(torch.nn.Module):
        def __init__(self, n):
            if args.real_torch:
                super().__init__()
            self.leaves = [Leaf() for _ in range(n)]

        def forward(self, x):
            for m in self.leaves:
                x = m(x)
            return x

    model = Model(args.modules)
    leaf = Leaf()
    x = torch.tensor([1.0]) if args.real_torch else torch.Tensor([1.0])
    n = args.calls

    def best(fn, per):
        out = []
        for _ in range(args.repeat):
            t0 = time.thread_time_ns()
            fn()
            out.append((time.thread_time_ns() - t0) / per)
        return min(out)

    res = {}
    # The outermost forward (a range) with --modules inner calls, per step.
    res["forward_step_ns"] = best(lambda: [model(x) for _ in range(n // args.modules)], n // args.modules)
    # One outermost module call (opens the step and a gpu_compute range).
    res["outer_call_ns"] = best(lambda: [leaf(x) for _ in range(n)], n)
    # Tensor.to on the CPU (not a copy to the GPU: the check only).
    res["tensor_to_cpu_ns"] = best(lambda: [x.to("cpu") for _ in range(n)], n)
    # builtins.open outside a fetch (the check only), open + close of /dev/null.
    res["open_ns"] = best(lambda: [open(os.devnull).close() for _ in range(n // 10)], n // 10)
    # An optimizer step with the global pre/post hooks (on the stand-in: a 1 ms sleep is its body,
    # so time an empty optimizer instead).
    if not args.real_torch:
        class Empty(torch.optim.Optimizer):
            def step(self):
                return None
        opt = Empty([], {})
    else:
        opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
    res["optimizer_step_ns"] = best(lambda: [opt.step() for _ in range(n // 10)], n // 10)
    print(json.dumps(res))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--modules", type=int, default=200)
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--real-torch", action="store_true")
    ap.add_argument("--variant")
    args = ap.parse_args()
    if args.variant:
        child(args)
        return
    rows = {}
    for v in ("off", "fast", "all"):
        env = dict(os.environ)
        env.pop("AMDAHL_TORCH_MODULE_CALLS", None)
        if v == "all":
            env["AMDAHL_TORCH_MODULE_CALLS"] = "all"
        cmd = [sys.executable, __file__, "--variant", v, "--modules", str(args.modules), "--calls", str(args.calls),
               "--repeat", str(args.repeat)] + (["--real-torch"] if args.real_torch else [])
        rows[v] = json.loads(subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout)
    print("%-20s %12s %12s %12s %14s %14s" % ("ns per call", "off", "fast", "all", "fast - off", "all - off"))
    for k in rows["off"]:
        o, f, a = rows["off"][k], rows["fast"][k], rows["all"][k]
        print("%-20s %12.0f %12.0f %12.0f %14.0f %14.0f" % (k, o, f, a, f - o, a - o))
    per_inner_fast = (rows["fast"]["forward_step_ns"] - rows["off"]["forward_step_ns"]) / args.modules
    per_inner_all = (rows["all"]["forward_step_ns"] - rows["off"]["forward_step_ns"]) / args.modules
    print("inner module call: +%.0f ns (fast), +%.0f ns (all); a step of %d module calls: +%.1f us (fast), "
          "+%.1f us (all)" % (per_inner_fast, per_inner_all, args.modules, per_inner_fast * args.modules / 1e3,
                              per_inner_all * args.modules / 1e3))


if __name__ == "__main__":
    main()
