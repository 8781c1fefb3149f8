#!/usr/bin/env python3
"""A launch-bound PyTorch loop with known work: per step OPS tiny CUDA ops (in-place add, a 64x64
matmul, in-place mul, in turn) inside a `step` NVTX range, no synchronize in the loop. The host's
launch path is the whole cost (each op's kernel is shorter than its launch), as in a small
transformer's training step, but without Python-level model code, so a profiler's per-launch
cost shows in the step time with little else to blur it.

Prints ms_per_step over the timed steps, the median and the minimum of its blocks of BLOCK
steps, and with --pace every block's mean: where in the run a cost lands (for example before
and after a sampled GPU window closes).

usage: launch_cost.py [--steps N] [--ops N] [--warmup N] [--block N] [--pace]
"""
import argparse
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--ops", type=int, default=300, help="CUDA ops per step (a multiple of 3)")
    ap.add_argument("--warmup", type=int, default=30, help="untimed steps first")
    ap.add_argument("--block", type=int, default=100, help="steps per block")
    ap.add_argument("--pace", action="store_true", help="print every block's ms/step")
    args = ap.parse_args()
    if args.steps < args.block or args.block < 1 or args.ops < 3:
        print("launch_cost: error: need --steps >= --block >= 1 and --ops >= 3", file=sys.stderr)
        return 1
    import torch
    if not torch.cuda.is_available():
        print("launch_cost: error: no CUDA device", file=sys.stderr)
        return 77
    nvtx = torch.cuda.nvtx
    x = torch.zeros(256, device="cuda")
    a = torch.randn(64, 64, device="cuda") * 0.01
    c = torch.empty(64, 64, device="cuda")

    def step():
        nvtx.range_push("step")
        for _ in range(args.ops // 3):
            x.add_(1.0)
            torch.mm(a, a, out=c)
            x.mul_(0.5)
        nvtx.range_pop()

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    marks = [time.perf_counter()]
    for i in range(args.steps):
        step()
        if (i + 1) % args.block == 0:
            marks.append(time.perf_counter())
    torch.cuda.synchronize()
    elapsed = time.perf_counter() - marks[0]
    blocks = [(b - a_) * 1e3 / args.block for a_, b in zip(marks, marks[1:])]
    s = sorted(blocks)
    print(f"launch_cost: steps={args.steps} ops={args.ops} ms_per_step={elapsed * 1e3 / args.steps:.4f} "
          f"median_block_ms={s[len(s) // 2]:.4f} min_block_ms={s[0]:.4f} "
          f"us_per_op_min={s[0] * 1e3 / args.ops:.3f}")
    if args.pace:
        print("launch_cost: pace " + " ".join(f"{b:.3f}" for b in blocks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
