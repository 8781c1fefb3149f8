#!/usr/bin/env python3
"""A small BERT trained on random token ids: an unmodified PyTorch program, as people write them.

transformers' BertForSequenceClassification (or BertForMaskedLM, --head mlm) built from a
BertConfig (no weights are downloaded; default: 4 layers, hidden 256, 4 heads, intermediate
1024, vocabulary 30522 -- BERT-mini sized, so that on an H200 in fp32 the host launching the
kernels, not the GPU, sets the pace), batch 32, sequence 128, one batch of random token ids and
labels made on the GPU, AdamW. --precision fp32 (TF32 off) or amp (fp16 autocast + GradScaler).

No synchronize inside the training loop (the program runs ahead of the GPU, as real training
scripts do); torch.cuda.synchronize() only before reading the clock at the start and at the end
of the timed steps. Prints its own steady-state figure as one line:

    train_bert: precision=fp32 head=cls batch=32 seq=128 steps=300 ms_per_step=9.876 ...

With --sync-check (default on CUDA) one warm-up step runs under
torch.cuda.set_sync_debug_mode("warn") and the number of synchronizing calls in it is printed
(`syncs_per_step=N`: GradScaler's inf check is one); the timed steps are not affected.
"""
import argparse
import sys
import time
import warnings


def sync_check(torch, step):
    """One step under torch.cuda.set_sync_debug_mode("warn"): the synchronizing calls in it (None: not counted)."""
    torch.cuda.synchronize()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            torch.cuda.set_sync_debug_mode("warn")
        except Exception as e:  # noqa: BLE001 -- a diagnostic only: never fail the run for it
            print(f"train_bert: no sync check: {e}", file=sys.stderr)
            step()
            return None
        try:
            step()
        finally:
            torch.cuda.set_sync_debug_mode("default")
    return sum(1 for w in caught if "synchronizing" in str(w.message).lower())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--precision", choices=["fp32", "amp"], default="fp32")
    ap.add_argument("--head", choices=["cls", "mlm"], default="cls",
                    help="cls: BertForSequenceClassification (2 labels); mlm: BertForMaskedLM (15%% of tokens)")
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--seq-len", type=int, default=128)
    ap.add_argument("--steps", type=int, default=300, help="timed steps")
    ap.add_argument("--warmup-steps", type=int, default=30, help="untimed steps before them")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=256)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--intermediate", type=int, default=1024)
    ap.add_argument("--vocab", type=int, default=30522)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--pace-every", type=int, default=0, metavar="N",
                    help="also print the host's mean ms per step over each block of N timed steps "
                         "(a multiple of 10; shows where in a run a slowdown lands)")
    ap.add_argument("--device", default="cuda", help="cuda (default) or cpu (a functional check only)")
    ap.add_argument("--no-sync-check", dest="sync_check", action="store_false",
                    help="skip counting the synchronizing calls of one warm-up step")
    args = ap.parse_args()
    if args.steps < 1 or args.warmup_steps < 0:
        ap.error("--steps must be >= 1 and --warmup-steps >= 0")

    import torch
    try:
        import transformers
        from transformers import BertConfig, BertForMaskedLM, BertForSequenceClassification
    except ImportError as e:
        print(f"train_bert: error: transformers is needed: {e}", file=sys.stderr)
        return 2

    dev = torch.device(args.device)
    cuda = dev.type == "cuda"
    if cuda and not torch.cuda.is_available():
        print("train_bert: error: no CUDA device", file=sys.stderr)
        return 2
    # fp32 means fp32: no TF32 in matmuls or cuDNN (the legacy flags only: torch >= 2.9 refuses
    # a mix of the legacy and the new fp32_precision API).
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(1)

    cfg = BertConfig(vocab_size=args.vocab, hidden_size=args.hidden, num_hidden_layers=args.layers,
                     num_attention_heads=args.heads, intermediate_size=args.intermediate,
                     max_position_embeddings=max(512, args.seq_len), num_labels=2,
                     problem_type="single_label_classification")
    model_cls = BertForSequenceClassification if args.head == "cls" else BertForMaskedLM
    model = model_cls(cfg).to(dev)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)

    b, s = args.batch_size, args.seq_len
    ids = torch.randint(1, args.vocab, (b, s), device=dev)
    if args.head == "cls":
        labels = torch.randint(0, 2, (b,), device=dev)
    else:
        labels = torch.where(torch.rand(b, s, device=dev) < 0.15, ids, torch.full_like(ids, -100))
    amp = args.precision == "amp"
    scaler = torch.amp.GradScaler(dev.type, enabled=amp)

    def step() -> torch.Tensor:
        opt.zero_grad(set_to_none=True)
        with torch.autocast(dev.type, dtype=torch.float16, enabled=amp):
            out = model(input_ids=ids, labels=labels)
        scaler.scale(out.loss).backward()
        scaler.step(opt)
        scaler.update()
        return out.loss.detach()

    syncs = None
    for i in range(args.warmup_steps):
        if cuda and args.sync_check and i == min(1, args.warmup_steps - 1):
            syncs = sync_check(torch, step)
        else:
            step()

    if cuda:
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    loss = None
    marks = [t0]                 # every 10th step's end on the host clock (no synchronize)
    for i in range(args.steps):
        loss = step()
        if (i + 1) % 10 == 0:
            marks.append(time.perf_counter())
    if cuda:
        torch.cuda.synchronize()
    elapsed = time.perf_counter() - t0
    ms = elapsed * 1e3 / args.steps
    # The median over blocks of 10 steps of the host's pace: a launch-bound loop's step time,
    # robust to a pause of the machine (the mean above is the program's steady-state figure).
    blocks = sorted((b - a) * 1e3 / 10 for a, b in zip(marks, marks[1:]))
    median10 = blocks[len(blocks) // 2] if blocks else ms

    if args.pace_every >= 10 and args.pace_every % 10 == 0:
        k = args.pace_every // 10
        pace = [(marks[j + k] - marks[j]) * 1e3 / args.pace_every for j in range(0, len(marks) - k, k)]
        print("train_bert: pace_ms_per_step every %d steps: %s"
              % (args.pace_every, " ".join(f"{p:.2f}" for p in pace)))
    n_params = sum(p.numel() for p in model.parameters())
    name = torch.cuda.get_device_name() if cuda else "cpu"
    print(f"train_bert {name} torch {torch.__version__} transformers {transformers.__version__} "
          f"attention {getattr(model.config, '_attn_implementation', '?')} params {n_params / 1e6:.1f}M "
          f"layers {args.layers} hidden {args.hidden} loss {float(loss):.4f}")
    print(f"train_bert: precision={args.precision} head={args.head} batch={b} seq={s} steps={args.steps} "
          f"warmup={args.warmup_steps} ms_per_step={ms:.3f} median10_ms={median10:.3f} "
          f"samples_per_sec={b * args.steps / elapsed:.1f}"
          + (f" syncs_per_step={syncs}" if syncs is not None else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
