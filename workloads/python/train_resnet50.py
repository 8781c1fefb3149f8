#!/usr/bin/env python3
"""torchvision ResNet-50 trained on one synthetic batch: an unmodified PyTorch program, as people write them.

resnet50 (v1.5), channels_last, cudnn.benchmark=True, SGD with momentum 0.9 and weight decay
1e-4, batch 128 of random 224x224 images and labels made on the GPU. --precision fp32 (TF32
off for cuDNN and matmuls), tf32 (TF32 on for both) or fp16 (fp16 autocast + GradScaler).

Unlike scripts/bench_resnet50_torch.py (which synchronizes after every step, as the amdahl
resnet50 workload does), nothing synchronizes inside the training loop: the program runs ahead
of the GPU, as real training scripts do. torch.cuda.synchronize() only before reading the clock
at the start and at the end of the timed steps. Prints its own steady-state figure as one line:

    train_resnet50: precision=fp32 batch=128 steps=60 ms_per_step=123.456 images_per_sec=...
"""
import argparse
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--precision", choices=["fp32", "tf32", "fp16"], default="fp32")
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--image-size", type=int, default=224)
    ap.add_argument("--steps", type=int, default=60, help="timed steps")
    ap.add_argument("--warmup-steps", type=int, default=15, help="untimed steps before them (cuDNN benchmark)")
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--device", default="cuda", help="cuda (default) or cpu (a functional check only)")
    args = ap.parse_args()
    if args.steps < 1 or args.warmup_steps < 0:
        ap.error("--steps must be >= 1 and --warmup-steps >= 0")

    import torch
    import torch.nn.functional as F
    import torchvision

    dev = torch.device(args.device)
    cuda = dev.type == "cuda"
    if cuda and not torch.cuda.is_available():
        print("train_resnet50: error: no CUDA device", file=sys.stderr)
        return 2
    torch.backends.cudnn.benchmark = True
    # The legacy flags only: torch >= 2.9 refuses a mix of them and the new fp32_precision API.
    tf32 = args.precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.manual_seed(1)

    model = torchvision.models.resnet50().to(dev).to(memory_format=torch.channels_last)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    n, sz = args.batch_size, args.image_size
    x = (torch.rand(n, 3, sz, sz, device=dev) * 2 - 1).contiguous(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (n,), device=dev)
    fp16 = args.precision == "fp16"
    scaler = torch.amp.GradScaler(dev.type, enabled=fp16)

    def step() -> torch.Tensor:
        opt.zero_grad(set_to_none=True)
        with torch.autocast(dev.type, dtype=torch.float16, enabled=fp16):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        return loss.detach()

    for _ in range(args.warmup_steps):
        step()
    if cuda:
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    loss = None
    for _ in range(args.steps):
        loss = step()
    if cuda:
        torch.cuda.synchronize()
    elapsed = time.perf_counter() - t0
    ms = elapsed * 1e3 / args.steps

    name = torch.cuda.get_device_name() if cuda else "cpu"
    cudnn = torch.backends.cudnn.version() if cuda else None
    print(f"train_resnet50 {name} torch {torch.__version__} cudnn {cudnn} loss {float(loss):.4f}")
    print(f"train_resnet50: precision={args.precision} batch={n} steps={args.steps} warmup={args.warmup_steps} "
          f"ms_per_step={ms:.3f} images_per_sec={n * args.steps / elapsed:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
