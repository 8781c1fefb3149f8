#!/usr/bin/env python3
# Short-lived worker processes that record NVTX ranges (issue 17, item 3): the main process
# forks --workers processes one after another (multiprocessing, fork context, as PyTorch's
# DataLoader does); each records --ranges `cpu_preprocess` ranges of --range-ms each in domain
# "amdahl" (about 0.1-0.3 s in all, shorter than the collector's first flush at 0.5 s), then
# leaves the way --exit says:
#   return     the target returns (multiprocessing then ends the child with os._exit(0))
#   os_exit    the target calls os._exit(0) itself
#   exit       a plain os.fork() child that calls sys.exit(0): interpreter shutdown, exit()
#   sigterm    the child reports done, then sleeps in an open `wait` range until the parent's
#              terminate() (SIGTERM), as DataLoader's shutdown may do
#   sigkill    the same, killed with SIGKILL (nothing can write then)
# The main process runs one `step` range per worker. Prints "worker pids: ..." and, per
# worker, its pid and exit status.
import argparse
import multiprocessing as mp
import os
import signal
import sys
import time

import nvtx

D = nvtx.get_domain("amdahl")


def attrs(message):
    return D.get_event_attributes(message=message)


def record(ranges, range_ms):
    t = time.perf_counter()
    for _ in range(ranges):
        D.push_range(attrs("cpu_preprocess"))
        t += range_ms / 1e3
        while time.perf_counter() < t:
            time.sleep(max(0.0, t - time.perf_counter()))
        D.pop_range()


def mp_target(mode, ranges, range_ms, done):
    record(ranges, range_ms)
    if mode == "os_exit":
        os._exit(0)
    if mode in ("sigterm", "sigkill"):
        done.set()
        D.push_range(attrs("wait"))
        time.sleep(60)
        D.pop_range()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exit", choices=["return", "os_exit", "exit", "sigterm", "sigkill"], default="return")
    ap.add_argument("--workers", type=int, default=3)
    ap.add_argument("--ranges", type=int, default=10)
    ap.add_argument("--range-ms", type=float, default=15.0)
    a = ap.parse_args()
    D.mark(attrs("main_started"))  # the collector is loaded before the first fork
    ctx = mp.get_context("fork")
    pids, statuses = [], []
    for _ in range(a.workers):
        D.push_range(attrs("step"))
        if a.exit == "exit":
            pid = os.fork()
            if pid == 0:
                record(a.ranges, a.range_ms)
                sys.exit(0)
            _, status = os.waitpid(pid, 0)
            pids.append(pid)
            statuses.append(os.waitstatus_to_exitcode(status))
        else:
            done = ctx.Event()
            p = ctx.Process(target=mp_target, args=(a.exit, a.ranges, a.range_ms, done))
            p.start()
            if a.exit in ("sigterm", "sigkill"):
                done.wait(30)
                time.sleep(0.05)  # into its `wait` range
                if a.exit == "sigterm":
                    p.terminate()
                else:
                    p.kill()
            p.join()
            pids.append(p.pid)
            statuses.append(p.exitcode)
        D.pop_range()
    print("worker pids: %s" % " ".join(str(p) for p in pids))
    for pid, st in zip(pids, statuses):
        print("worker %d exit %s" % (pid, st))


if __name__ == "__main__":
    main()
