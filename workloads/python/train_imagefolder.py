#!/usr/bin/env python3
# A plain torchvision ResNet-50 training script on an ImageFolder of JPEG files, the way the
# PyTorch ImageNet example writes it (RandomResizedCrop + flip + ToTensor + Normalize, SGD with
# momentum, optional bf16 autocast and channels_last). It contains nothing of amdahl and no NVTX:
# scripts/bench_torch.sh profiles it unmodified with `amdahl profile --torch`.
import argparse
import time

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T


def parse_args():
    ap = argparse.ArgumentParser(description="ResNet-50 on an ImageFolder (plain PyTorch)")
    ap.add_argument("data", help="ImageFolder root: one sub-directory of images per class")
    ap.add_argument("--workers", type=int, default=4, help="DataLoader num_workers")
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--steps", type=int, default=0, help="stop after this many optimizer steps (0: all)")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--amp", action="store_true", help="bf16 autocast")
    ap.add_argument("--channels-last", action="store_true")
    ap.add_argument("--no-pin-memory", action="store_true")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=5, help="steps left out of the throughput figure")
    ap.add_argument("--timed-last", type=int, default=0,
                    help="also time the last K steps alone (the steady state, after the prefetch drain)")
    ap.add_argument("--arch", default="resnet50", help="torchvision model name")
    return ap.parse_args()


def main():
    args = parse_args()
    torch.manual_seed(0)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.backends.cudnn.benchmark = True

    normalize = T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    dataset = torchvision.datasets.ImageFolder(
        args.data, T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(), normalize]))
    loader = torch.utils.data.DataLoader(
        dataset, batch_size=args.batch_size, shuffle=True, num_workers=args.workers,
        pin_memory=not args.no_pin_memory, drop_last=True)

    model = getattr(torchvision.models, args.arch)(num_classes=len(dataset.classes)).to(device)
    if args.channels_last:
        model = model.to(memory_format=torch.channels_last)
    criterion = nn.CrossEntropyLoss().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    print("images %d, classes %d, batch %d, workers %d, device %s"
          % (len(dataset), len(dataset.classes), args.batch_size, args.workers, device), flush=True)

    model.train()
    step = 0
    t_warm = None
    t_last = None
    last_from = args.steps - args.timed_last if args.steps and args.timed_last else -1
    done = False
    for epoch in range(args.epochs):
        for images, target in loader:
            images = images.to(device, non_blocking=True)
            target = target.to(device, non_blocking=True)
            if args.channels_last:
                images = images.contiguous(memory_format=torch.channels_last)
            with torch.autocast(device_type=device.type, dtype=torch.bfloat16, enabled=args.amp):
                output = model(images)
                loss = criterion(output, target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            step += 1
            if step == last_from:
                if device.type == "cuda":
                    torch.cuda.synchronize()
                t_last = time.perf_counter()
            if step == args.warmup:
                if device.type == "cuda":
                    torch.cuda.synchronize()
                t_warm = time.perf_counter()
            if step % args.log_every == 0:
                print("epoch %d step %d loss %.4f" % (epoch, step, loss.item()), flush=True)
            if args.steps and step >= args.steps:
                done = True
                break
        if done:
            break
    if device.type == "cuda":
        torch.cuda.synchronize()
    if t_warm is not None and step > args.warmup:
        dt = time.perf_counter() - t_warm
        n = step - args.warmup
        print("steps %d (timed %d): %.1f ms/step, %.1f images/s"
              % (step, n, 1e3 * dt / n, n * args.batch_size / dt), flush=True)
    if t_last is not None and step > last_from:
        dt = time.perf_counter() - t_last
        n = step - last_from
        print("last %d steps: %.2f ms/step" % (n, 1e3 * dt / n), flush=True)


if __name__ == "__main__":
    main()
