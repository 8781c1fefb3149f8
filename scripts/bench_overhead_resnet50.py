#!/usr/bin/env python3
"""ResNet-50 training throughput for the overhead benchmark (scripts/bench_overhead.sh).

torchvision resnet50, channels_last, batch 128, synthetic data on the GPU, SGD, AMP in fp16
(torch.autocast + GradScaler) and bf16 (torch.autocast), cudnn.benchmark on. For each dtype:
--warmup iterations, then --iters timed iterations (one synchronize before and after the timed
loop, none per step, as real training). NVTX `step` / `gpu_compute` ranges in every mode (free
without an NVTX injection, recorded under `amdahl profile`).

--mode plain      unprofiled (also the mode used under `amdahl profile`)
--mode torchprof  the timed loop runs inside torch.profiler.profile(activities=[CPU, CUDA]);
                  its post-processing at exit is timed separately, not in images/s.
Prints one line per dtype: RESULT {"dtype": ..., "images_per_sec": ..., ...} (JSON).
"""
import argparse
import json
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", choices=["plain", "torchprof"], default="plain")
    ap.add_argument("--label", default=None, help="label printed in RESULT (default: the mode)")
    ap.add_argument("--dtypes", default="fp16,bf16")
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--iters", type=int, default=100)
    args = ap.parse_args()

    try:
        import torch
        import torch.nn.functional as F
        import torchvision
    except ImportError as e:
        print(f"bench_overhead_resnet50: error: {e}", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("bench_overhead_resnet50: error: no CUDA device", file=sys.stderr)
        return 2
    nvtx = torch.cuda.nvtx
    torch.backends.cudnn.benchmark = True
    dev = torch.device("cuda")
    torch.manual_seed(1)
    n = args.batch_size
    x = (torch.rand(n, 3, 224, 224, device=dev) * 2 - 1).contiguous(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (n,), device=dev)

    for name in args.dtypes.split(","):
        dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[name]
        model = torchvision.models.resnet50().to(dev).to(memory_format=torch.channels_last)
        model.train()
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
        scaler = torch.amp.GradScaler("cuda", enabled=dtype == torch.float16)

        def step():
            nvtx.range_push("step")
            nvtx.range_push("gpu_compute")
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=dtype):
                loss = F.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            nvtx.range_pop()
            nvtx.range_pop()

        for _ in range(args.warmup):
            step()
        torch.cuda.synchronize()

        post_s = 0.0
        if args.mode == "torchprof":
            from torch.profiler import ProfilerActivity, profile
            prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
            prof.__enter__()
        t0 = time.perf_counter()
        for _ in range(args.iters):
            step()
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - t0
        if args.mode == "torchprof":
            p0 = time.perf_counter()
            prof.__exit__(None, None, None)
            events = len(prof.events())
            post_s = time.perf_counter() - p0
        result = {
            "label": args.label or args.mode,
            "dtype": name,
            "batch": n,
            "iters": args.iters,
            "images_per_sec": round(n * args.iters / elapsed, 1),
            "step_ms": round(elapsed / args.iters * 1e3, 3),
        }
        if args.mode == "torchprof":
            result["profiler_postprocess_s"] = round(post_s, 2)
            result["profiler_events"] = events
        print("RESULT " + json.dumps(result), flush=True)
        del model, opt, scaler
        torch.cuda.empty_cache()
    return 0


if __name__ == "__main__":
    sys.exit(main())
