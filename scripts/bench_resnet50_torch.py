#!/usr/bin/env python3
"""PyTorch peer of build/bin/resnet50 for the side-by-side benchmark (scripts/bench_resnet50.sh).

torchvision resnet50 (v1.5), channels_last, cudnn.benchmark=True, SGD with momentum 0.9 and
weight decay 1e-4, one synthetic batch kept on the GPU, a synchronize at the end of every step
(as the amdahl workload does). fp32 disables TF32 everywhere; tf32 enables it for cuDNN and
matmuls; fp16 uses autocast + GradScaler; bf16 uses autocast. Prints one line in the same format
as the amdahl workload: "... images_per_sec=N".
"""
import argparse
import sys
import time


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--precision", choices=["fp32", "tf32", "fp16", "bf16"], default="fp32")
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--warmup-steps", type=int, default=20)
    ap.add_argument("--lr", type=float, default=0.01)
    args = ap.parse_args()

    import torch
    import torch.nn.functional as F
    import torchvision

    if not torch.cuda.is_available():
        print("bench_resnet50_torch: error: no CUDA device", file=sys.stderr)
        return 2
    torch.backends.cudnn.benchmark = True
    tf32 = args.precision == "tf32"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    dev = torch.device("cuda")
    torch.manual_seed(1)

    model = torchvision.models.resnet50().to(dev).to(memory_format=torch.channels_last)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    n = args.batch_size
    x = (torch.rand(n, 3, 224, 224, device=dev) * 2 - 1).contiguous(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (n,), device=dev)
    amp_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(args.precision)
    scaler = torch.amp.GradScaler("cuda", enabled=args.precision == "fp16")

    def step() -> torch.Tensor:
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=amp_dtype or torch.float32, enabled=amp_dtype is not None):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        torch.cuda.synchronize()
        return loss

    for _ in range(args.warmup_steps):
        step()
    t0 = time.perf_counter()
    times = []
    loss = None
    for _ in range(args.steps):
        s0 = time.perf_counter()
        loss = step()
        times.append((time.perf_counter() - s0) * 1e3)
    elapsed = time.perf_counter() - t0
    times.sort()
    ips = n * args.steps / elapsed
    print(f"torch resnet50 {torch.cuda.get_device_name()} torch {torch.__version__} "
          f"cudnn {torch.backends.cudnn.version()} loss {float(loss):.4f}")
    print(f"torch_resnet50 precision={args.precision} batch={n} steps={args.steps} "
          f"step_ms_median={times[len(times) // 2]:.2f} images_per_sec={ips:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
