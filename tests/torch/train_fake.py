#!/usr/bin/env python3
# A small "training script" written against the torch API, run on the stand-in torch of
# fake_torch/ by test_torch_profile.py: a file-backed Dataset (open() + parsing + CPU work in
# __getitem__), a DataLoader with N workers, .to("cuda") copies, a model of nested Modules,
# backward and SGD steps. It knows nothing of amdahl; its output must not change under it.
import argparse
import os
import time

import torch
from torch.utils.data import DataLoader, Dataset


class FileDataset(Dataset):
    def __init__(self, root, n, dim):
        self.paths = []
        os.makedirs(root, exist_ok=True)
        for i in range(n):
            p = os.path.join(root, "sample_%04d.txt" % i)
            if not os.path.exists(p):
                with open(p, "w") as f:
                    f.write(" ".join(str((i * 31 + j * 7) % 11) for j in range(dim)))
            self.paths.append(p)

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, index):
        with open(self.paths[index]) as f:
            values = [float(v) for v in f.read().split()]
        time.sleep(0.003)                                       # decoding/augmenting costs time
        return torch.tensor([v / 10.0 for v in values]), index % 3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--pin", action="store_true")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--samples", type=int, default=24)
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--break-after", type=int, default=-1, help="last epoch: stop after this many batches")
    ap.add_argument("--context", default=None, help="multiprocessing context (fork/spawn)")
    ap.add_argument("--own-step", action="store_true", help="push an NVTX `step` range around each iteration")
    a = ap.parse_args()
    dim = 16
    ds = FileDataset(a.data, a.samples, dim)
    kw = {"multiprocessing_context": a.context} if a.context else {}
    loader = DataLoader(ds, batch_size=a.batch, num_workers=a.workers, pin_memory=a.pin, **kw)
    model = torch.nn.Sequential(torch.nn.Linear(dim * a.batch), torch.nn.Scale(0.5)).to("cuda")
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    steps = 0
    for epoch in range(a.epochs):
        last = epoch == a.epochs - 1
        for i, (x, y) in enumerate(loader):
            if last and a.break_after >= 0 and i >= a.break_after:
                break
            if a.own_step:
                import nvtx
                nvtx.push_range("step")
            x = x.to("cuda", non_blocking=True)
            y = y.cuda()
            opt.zero_grad()
            out = model(x)
            loss = out.sum()
            loss.backward()
            opt.step()
            if a.own_step:
                nvtx.pop_range()
            steps += 1
            print("epoch %d batch %d loss %.6f labels %s" % (epoch, i, loss.item(), y.values))
    print("optimizer steps: %d" % steps)
    print("weights checksum: %.6f" % sum(model.parameters()[0].values))


if __name__ == "__main__":
    main()
