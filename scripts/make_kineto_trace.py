#!/usr/bin/env python3
"""A few ResNet-ish training steps on the GPU with stage annotations, profiled by torch.profiler
(Kineto) and/or annotated with NVTX for `amdahl profile`.

Every stage is wrapped in a context that opens both a torch.profiler.record_function (seen by
Kineto) and an NVTX range of the same canonical name (seen by amdahl's collector), so the same
program gives both views:

  --mode kineto  torch.profiler with a schedule; writes --trace FILE (.json or .json.gz)
  --mode nvtx    no torch.profiler: run it under `amdahl profile -o own.amdahl -- ...`

Stages: disk_io (read sample files), cpu_preprocess (decode + augment on the CPU), h2d (copy to
the GPU), gpu_compute (forward, backward, optimizer step, loss.item()). num_workers=0 so every
stage runs on the training thread. Used by scripts/bench_kineto.sh.
"""
import argparse
import contextlib
import gzip
import os
import shutil
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.skip = None if stride == 1 and cin == cout else nn.Sequential(
            nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        y = self.b2(self.c2(y))
        return F.relu(y + (x if self.skip is None else self.skip(x)))


class ResNetish(nn.Module):
    def __init__(self, classes=100, width=64):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 7, 2, 3, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        layers, cin = [], width
        for i, cout in enumerate([width, width * 2, width * 4, width * 8]):
            layers += [Block(cin, cout, 1 if i == 0 else 2), Block(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


@contextlib.contextmanager
def stage(name):
    """record_function for Kineto + NVTX range for amdahl, same name."""
    torch.cuda.nvtx.range_push(name)
    try:
        with torch.profiler.record_function(name):
            yield
    finally:
        torch.cuda.nvtx.range_pop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", choices=["kineto", "nvtx"], required=True)
    ap.add_argument("--trace", default="kineto_trace.json.gz")
    ap.add_argument("--steps", type=int, default=12, help="steps recorded (after wait+warmup)")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--size", type=int, default=160)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    dev = torch.device("cuda")
    torch.manual_seed(args.seed)
    tmp = tempfile.mkdtemp(prefix="amdahl_kineto_")
    try:
        rng = np.random.default_rng(args.seed)
        files = []
        for i in range(args.batch * 4):  # raw uint8 "images" on disk
            p = os.path.join(tmp, f"{i}.bin")
            rng.integers(0, 255, size=(args.size, args.size, 3), dtype=np.uint8).tofile(p)
            files.append(p)
        model = ResNetish().to(dev)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        total = 2 + args.steps  # wait=1, warmup=1, active=steps

        def one_step(k):
            with stage("disk_io"):
                raw = [np.fromfile(files[(k * args.batch + j) % len(files)], dtype=np.uint8)
                       for j in range(args.batch)]
            with stage("cpu_preprocess"):
                x = torch.from_numpy(np.stack(raw)).view(args.batch, args.size, args.size, 3)
                x = x.permute(0, 3, 1, 2).float().div_(255.0)
                x = torch.flip(x, dims=[3]) if k % 2 else x
                x = (x - 0.45) / 0.225
                y = torch.randint(0, 100, (args.batch,))
            with stage("h2d"):
                x = x.to(dev)
                y = y.to(dev)
            with stage("gpu_compute"):
                opt.zero_grad(set_to_none=True)
                loss = F.cross_entropy(model(x), y)
                loss.backward()
                opt.step()
                loss.item()

        if args.mode == "kineto":
            acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
            sched = torch.profiler.schedule(wait=1, warmup=1, active=args.steps, repeat=1)
            with torch.profiler.profile(activities=acts, schedule=sched) as prof:
                for k in range(total):
                    one_step(k)
                    prof.step()
            out = args.trace
            plain = out[:-3] if out.endswith(".gz") else out
            prof.export_chrome_trace(plain)
            if out.endswith(".gz"):
                with open(plain, "rb") as src, gzip.open(out, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                os.remove(plain)
            print(f"wrote {out}")
        else:
            for k in range(total):
                torch.cuda.nvtx.range_push("step")
                one_step(k)
                torch.cuda.nvtx.range_pop()
            torch.cuda.synchronize()
        time.sleep(0.01)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
