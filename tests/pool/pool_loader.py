#!/usr/bin/env python3
# A data loader on a concurrent.futures.ThreadPoolExecutor, annotated for amdahl (issue 17,
# item 3): every item is loaded by a pool thread in two ranges of domain "amdahl", `disk_io`
# then `cpu_preprocess` (then, with --marks, a `produce` mark with the item id); the main thread
# runs one `step` range per batch of --batch items: a `wait` range around each future's result()
# (then, with --marks, a `consume` mark), then a training stage (`gpu_compute` by default: a
# stand-in for the training step). --prefetch 0: each step submits its own batch first, then
# waits for it (loading and training in series); --prefetch P: P batches are submitted ahead and
# each step submits the batch P ahead after taking its own (loading overlaps training).
#
# Costs are fixed. `--cost sleep` (default): each stage sleeps to an absolute deadline chained
# from the task's (or step's) start, so stage times are ground truth on any number of cores and
# the pool's threads do not compete for the GIL or the CPU. `--cost spin`: busy loops on
# time.perf_counter() (these hold the GIL: pool threads and the main thread then share one core's
# worth of Python, so a bigger pool does not scale the way the model of free cores assumes).
#
# Prints "steps: N", "ms/step: X" (over the steps after the first --warmup ones) and "items: N".
import argparse
import collections
import time
from concurrent.futures import ThreadPoolExecutor

import nvtx

D = nvtx.get_domain("amdahl")
_attrs = {}


def A(message, payload=None):
    """Event attributes (cached per name when there is no payload)."""
    if payload is not None:
        return D.get_event_attributes(message=message, payload=payload)
    if message not in _attrs:
        _attrs[message] = D.get_event_attributes(message=message)
    return _attrs[message]


def make_cost(kind):
    if kind == "sleep":
        def until(deadline):
            while True:
                left = deadline - time.perf_counter()
                if left <= 0:
                    return
                time.sleep(left)
    else:
        def until(deadline):
            while time.perf_counter() < deadline:
                pass
    return until


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pool", type=int, default=1, help="ThreadPoolExecutor max_workers")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--warmup", type=int, default=2, help="steps left out of the printed ms/step")
    ap.add_argument("--batch", type=int, default=4, help="items per step")
    ap.add_argument("--prefetch", type=int, default=0,
                    help="batches submitted ahead (0: each step submits its own batch, then waits for it)")
    ap.add_argument("--disk-ms", type=float, default=2.0, help="per item")
    ap.add_argument("--cpu-ms", type=float, default=3.0, help="per item")
    ap.add_argument("--train-ms", type=float, default=10.0, help="per step")
    ap.add_argument("--train-stage", default="gpu_compute", help="the main thread's stage name")
    ap.add_argument("--cost", choices=["sleep", "spin"], default="sleep")
    ap.add_argument("--marks", action="store_true", help="emit produce/consume marks (int64 item ids)")
    a = ap.parse_args()
    until = make_cost(a.cost)

    def load(item):
        t = time.perf_counter()
        D.push_range(A("disk_io"))
        t += a.disk_ms / 1e3
        until(t)
        D.pop_range()
        D.push_range(A("cpu_preprocess"))
        t += a.cpu_ms / 1e3
        until(t)
        D.pop_range()
        if a.marks:
            D.mark(A("produce", payload=item))
        return item

    times = []
    submitted = 0
    with ThreadPoolExecutor(max_workers=a.pool) as ex:
        pending = collections.deque()  # (item, future), in item order

        def submit_batch(b):
            nonlocal submitted
            if b >= a.steps:
                return
            for item in range(b * a.batch, (b + 1) * a.batch):
                pending.append((item, ex.submit(load, item)))
                submitted += 1

        for b in range(a.prefetch):  # the batches loaded ahead of the first step
            submit_batch(b)
        for s in range(a.steps):
            t0 = time.perf_counter()
            D.push_range(A("step"))
            if a.prefetch == 0:
                submit_batch(s)
            for _ in range(a.batch):
                item, fut = pending.popleft()
                D.push_range(A("wait"))
                got = fut.result()
                D.pop_range()
                if a.marks:
                    D.mark(A("consume", payload=item))
                assert got == item
            if a.prefetch > 0:
                submit_batch(s + a.prefetch)
            D.push_range(A(a.train_stage))
            until(time.perf_counter() + a.train_ms / 1e3)
            D.pop_range()
            D.pop_range()
            times.append(time.perf_counter() - t0)
    analysed = times[a.warmup:] or times
    print("steps: %d" % a.steps)
    print("ms/step: %.3f" % (1e3 * sum(analysed) / len(analysed)))
    print("items: %d" % submitted)


if __name__ == "__main__":
    main()
