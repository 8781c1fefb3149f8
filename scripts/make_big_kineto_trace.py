#!/usr/bin/env python3
"""Writes a large synthetic PyTorch profiler (Kineto) trace for timing `amdahl import`
(scripts/bench_import.sh; issue 18, class 11).

The events are the kinds a real trace of a training loop holds, in Kineto's shape: per step a
ProfilerStep#N and a DataLoader fetch (user_annotation) on the training thread, python_function
frames, cpu_op (aten::...) ops each launching a kernel through cudaLaunchKernel (cuda_runtime,
with a correlation id matched by the kernel's), a host-to-device copy (cudaMemcpyAsync +
gpu_memcpy), ac2g flow events, the backward pass's ops on the autograd thread, and
Optimizer.step / zero_grad. Written compact (no spaces), about 90 bytes an event.

  make_big_kineto_trace.py --events 10000000 -o /tmp/big.json     (about 0.9 GB)
  make_big_kineto_trace.py --events 1000000 -o /tmp/big.json.gz    (gzip when the name ends .gz)
"""
import argparse
import gzip
import sys

KERNELS = ["sm90_xmma_gemm_f32f32", "volta_sgemm_128x64_nn", "elementwise_kernel", "reduce_kernel<512,1>",
           "ampere_sgemm_64x32_tn"]
OPS = ["aten::conv2d", "aten::linear", "aten::relu", "aten::add_", "aten::batch_norm", "aten::mm"]
PY = ["torch/nn/modules/module.py(1501): _call_impl", "train.py(42): forward", "torch/_tensor.py(487): backward"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000, help="about how many events (default 1000000)")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    if a.events < 1000:
        sys.exit("make_big_kineto_trace.py: --events must be at least 1000")
    opener = gzip.open if a.output.endswith(".gz") else open
    pid, main_tid, bwd_tid, stream = 4242, 4242, 4250, 7
    out = []
    n = 0
    corr = 1
    ts = 1_000_000.0
    step = 0

    def x(cat, name, p, t, start, dur, args=""):
        nonlocal n
        n += 1
        out.append('{"ph":"X","cat":"%s","name":"%s","pid":%d,"tid":%d,"ts":%.3f,"dur":%d%s},\n'
                   % (cat, name, p, t, start, dur, args))

    def launch(tid, op, t0, kernel_i):
        nonlocal corr, n
        x("cpu_op", op, pid, tid, t0, 9)
        x("cuda_runtime", "cudaLaunchKernel", pid, tid, t0 + 2, 5.0, ',"args":{"cbid":211,"correlation":%d}' % corr)
        x("kernel", KERNELS[kernel_i % len(KERNELS)], 0, stream, t0 + 20, 30.0,
          ',"args":{"device":0,"context":1,"stream":%d,"correlation":%d}' % (stream, corr))
        if corr % 4 == 0:
            n += 2
            out.append('{"ph":"s","id":%d,"pid":%d,"tid":%d,"ts":%.3f,"cat":"ac2g","name":"ac2g"},\n'
                       % (corr, pid, tid, t0 + 2))
            out.append('{"ph":"f","id":%d,"pid":0,"tid":%d,"ts":%.3f,"cat":"ac2g","name":"ac2g","bp":"e"},\n'
                       % (corr, stream, t0 + 20))
        corr += 1

    with opener(a.output, "wt") as f:
        f.write('{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3",'
                '"totalGlobalMem":85097971712,"computeMajor":9,"computeMinor":0,"numSms":132}],\n'
                '"traceEvents":[\n')
        f.write('{"name":"process_name","ph":"M","ts":0,"pid":%d,"tid":0,"args":{"name":"python3 train.py"}},\n' % pid)
        f.write('{"name":"thread_name","ph":"M","ts":0,"pid":%d,"tid":%d,"args":{"name":"thread %d (python3)"}},\n'
                % (pid, main_tid, main_tid))
        f.write('{"name":"thread_name","ph":"M","ts":0,"pid":%d,"tid":%d,"args":{"name":"autograd thread"}},\n'
                % (pid, bwd_tid))
        ops_per_step = 120
        while n < a.events:
            t = ts
            step_len = 20.0 + ops_per_step * 2 * 40.0 + 400.0
            x("user_annotation", "ProfilerStep#%d" % step, pid, main_tid, t, step_len)
            x("user_annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", pid, main_tid,
              t + 1, 15.0)
            x("python_function", PY[0], pid, main_tid, t + 2, 10.0)
            t += 20
            x("cpu_op", "aten::to", pid, main_tid, t, 12.0, ',"args":{"External id":%d}' % corr)
            x("cuda_runtime", "cudaMemcpyAsync", pid, main_tid, t + 1, 10.0,
              ',"args":{"cbid":41,"correlation":%d}' % corr)
            x("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, stream, t + 5, 80.0,
              ',"args":{"device":0,"context":1,"stream":%d,"correlation":%d,"bytes":602112}' % (stream, corr))
            corr += 1
            for k in range(ops_per_step):
                if k % 3 == 0:
                    x("python_function", PY[1], pid, main_tid, t, 35.0)
                launch(main_tid, OPS[k % len(OPS)], t, k)
                t += 40
            for k in range(ops_per_step):
                launch(bwd_tid, OPS[k % len(OPS)] + "_backward", t, k + 1)
                t += 40
            x("user_annotation", "Optimizer.zero_grad#SGD.zero_grad", pid, main_tid, t, 20.0)
            x("user_annotation", "Optimizer.step#SGD.step", pid, main_tid, t + 30, 300.0)
            for k in range(10):
                launch(main_tid, "aten::_foreach_add_", t + 31 + k * 25, k)
            ts += step_len + 5
            step += 1
            if len(out) > 20000:
                f.write("".join(out))
                out.clear()
        f.write("".join(out))
        f.write('{"name":"process_labels","ph":"M","ts":0,"pid":%d,"tid":0,"args":{"labels":"CPU"}}\n]}\n' % pid)
    print("make_big_kineto_trace.py: %d events, %d steps, %s" % (n + 4, step, a.output), file=sys.stderr)


if __name__ == "__main__":
    main()
