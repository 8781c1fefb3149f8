#!/usr/bin/env python3
"""A small PyTorch training run whose DataLoader uses worker processes, annotated for amdahl.

ResNet-18 on synthetic images stored as .npy files in a temporary directory. Each DataLoader
item is one whole batch (batch_size=None, item id = batch index), so the worker that builds
batch b can say so:
  worker process:  disk_io (np.load of the batch's files), cpu_preprocess (random crop, flip,
                   normalise), then a `produce` mark with payload b
  main process:    step { wait (blocking take from the loader; domain amdahl only), `consume`
                   mark with payload b,
                   h2d (pinned, non_blocking copy), gpu_compute (forward, backward, SGD step) }
With the `nvtx` package importable, ranges and marks go to domain "amdahl" (marks carry the
batch index as an int64 payload). Without it, torch.cuda.nvtx ranges in the default domain
with exactly the canonical stage names (and `step`); no marks (torch.cuda.nvtx has no payloads).

Run it under amdahl:
  build/bin/amdahl profile -o torch.amdahl -- python3 workloads/python/train_dataloader.py --workers 4
  build/bin/amdahl report torch.amdahl
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

import numpy as np


# --- annotations -------------------------------------------------------------------------------
class Annotations:
    """Stage ranges and produce/consume marks through `nvtx` (domain amdahl) or torch.cuda.nvtx."""

    def __init__(self, use_nvtx_package: bool):
        self.pkg = None
        if use_nvtx_package:
            try:
                import nvtx  # the NVIDIA `nvtx` package (pip install nvtx)
                self.pkg = nvtx
            except ImportError:
                self.pkg = None
        if self.pkg is None:
            import torch.cuda.nvtx as tnvtx
            self.tnvtx = tnvtx

    @property
    def backend(self) -> str:
        return "nvtx package, domain amdahl" if self.pkg else "torch.cuda.nvtx, default domain"

    def push(self, name: str) -> None:
        if self.pkg:
            self.pkg.push_range(message=name, domain="amdahl")
        else:
            self.tnvtx.range_push(name)

    def pop(self) -> None:
        if self.pkg:
            self.pkg.pop_range(domain="amdahl")
        else:
            self.tnvtx.range_pop()

    def mark(self, name: str, item: int) -> None:
        if self.pkg:
            self.pkg.mark(message=name, domain="amdahl", payload=int(item))


class Range:
    def __init__(self, ann: Annotations, name: str):
        self.ann, self.name = ann, name

    def __enter__(self):
        self.ann.push(self.name)

    def __exit__(self, *exc):
        self.ann.pop()
        return False


# --- data --------------------------------------------------------------------------------------
def write_images(root: str, n_files: int, size: int, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    paths = []
    for i in range(n_files):
        p = os.path.join(root, f"img_{i:05d}.npy")
        np.save(p, rng.integers(0, 256, size=(size, size, 3), dtype=np.uint8))
        paths.append(p)
    return paths


class BatchFiles:
    """Map-style dataset whose item b is batch b: reads and preprocesses its images."""

    def __init__(self, paths, batch_size, crop, n_batches, use_nvtx_package, seed=0):
        self.paths, self.batch_size, self.crop, self.n_batches = paths, batch_size, crop, n_batches
        self.use_nvtx_package, self.seed = use_nvtx_package, seed
        self.ann = None  # created lazily in each worker process

    def __len__(self):
        return self.n_batches

    def __getitem__(self, b):
        import torch
        if self.ann is None:
            self.ann = Annotations(self.use_nvtx_package)
        ann = self.ann
        n = len(self.paths)
        with Range(ann, "disk_io"):
            raw = [np.load(self.paths[(b * self.batch_size + j) % n]) for j in range(self.batch_size)]
        with Range(ann, "cpu_preprocess"):
            rng = np.random.default_rng(self.seed * 1_000_003 + b)
            size = raw[0].shape[0]
            out = np.empty((self.batch_size, 3, self.crop, self.crop), dtype=np.float32)
            for j, img in enumerate(raw):
                y0, x0 = rng.integers(0, size - self.crop + 1, size=2)
                patch = img[y0:y0 + self.crop, x0:x0 + self.crop]
                if rng.random() < 0.5:
                    patch = patch[:, ::-1]
                out[j] = (patch.transpose(2, 0, 1).astype(np.float32) / 255.0 - 0.45) / 0.225
            labels = rng.integers(0, 1000, size=self.batch_size)
            batch = (torch.from_numpy(out), torch.from_numpy(labels))
        ann.mark("produce", b)
        return batch


# --- training ----------------------------------------------------------------------------------
def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=4, help="DataLoader worker processes")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--image-size", type=int, default=256, help="stored image side")
    ap.add_argument("--crop", type=int, default=224)
    ap.add_argument("--files", type=int, default=512, help="image files written to the temp dir")
    ap.add_argument("--prefetch", type=int, default=2, help="prefetch_factor per worker")
    ap.add_argument("--start-method", default="fork", choices=["fork", "spawn", "forkserver"])
    ap.add_argument("--no-nvtx-package", action="store_true", help="use torch.cuda.nvtx even if nvtx is importable")
    ap.add_argument("--data-dir", default=None, help="where to write the images (default: a temp dir, removed)")
    args = ap.parse_args()

    import torch
    import torch.nn.functional as F
    import torchvision

    if not torch.cuda.is_available():
        print("train_dataloader: error: no CUDA device", file=sys.stderr)
        return 2
    ann = Annotations(not args.no_nvtx_package)
    own_dir = args.data_dir is None
    data_dir = args.data_dir or tempfile.mkdtemp(prefix="amdahl-images-")
    try:
        paths = write_images(data_dir, args.files, args.image_size)
        dataset = BatchFiles(paths, args.batch_size, args.crop, args.steps, not args.no_nvtx_package)
        loader = torch.utils.data.DataLoader(
            dataset, batch_size=None, shuffle=False, num_workers=args.workers, pin_memory=True,
            prefetch_factor=args.prefetch if args.workers > 0 else None,
            persistent_workers=False,
            multiprocessing_context=args.start_method if args.workers > 0 else None)

        dev = torch.device("cuda")
        torch.backends.cudnn.benchmark = True
        model = torchvision.models.resnet18().to(dev).to(memory_format=torch.channels_last)
        model.train()
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

        print(f"train_dataloader: {args.steps} steps, batch {args.batch_size}, {args.workers} workers, "
              f"annotations: {ann.backend}", flush=True)
        t0 = time.perf_counter()
        it = iter(loader)
        for b in range(args.steps):
            with Range(ann, "step"):
                if ann.pkg:  # `wait` is a join only in domain amdahl
                    with Range(ann, "wait"):
                        x, y = next(it)
                else:
                    x, y = next(it)
                ann.mark("consume", b)
                with Range(ann, "h2d"):
                    x = x.to(dev, non_blocking=True).contiguous(memory_format=torch.channels_last)
                    y = y.to(dev, non_blocking=True)
                with Range(ann, "gpu_compute"):
                    opt.zero_grad(set_to_none=True)
                    with torch.autocast("cuda", dtype=torch.bfloat16):
                        loss = F.cross_entropy(model(x), y)
                    loss.backward()
                    opt.step()
                    torch.cuda.synchronize()
        elapsed = time.perf_counter() - t0
        print(f"train_dataloader: {args.steps * args.batch_size / elapsed:.1f} images/s, "
              f"final loss {float(loss):.3f}", flush=True)
    finally:
        if own_dir:
            shutil.rmtree(data_dir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
