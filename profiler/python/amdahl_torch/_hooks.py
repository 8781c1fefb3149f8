# amdahl_torch._hooks: the patches that annotate an unmodified PyTorch training script with
# amdahl's NVTX stages (docs/torch.md says what each one covers and which torch internals it
# relies on). Every patch only adds NVTX calls around the original function and passes its
# arguments, return value and exceptions through unchanged. A patch that cannot be placed is
# skipped and recorded as an `amdahl`-domain mark `torch.uncovered:<what>`.
import atexit
import builtins
import ctypes
import inspect
import os
import sys
import threading

from . import _nvtx

_B = _nvtx._NullBackend()       # the NVTX route (set by install())
_installed = False
_in_worker = False              # True in a DataLoader worker process
_driver = None                  # ident of the thread that drives training (owns `step`)
uncovered = []                  # what could not be annotated in this process
placed = []                     # what was annotated

# The symbol of amdahl::profiler::write_part_now() in libamdahl_collector.so (exported).
_WRITE_PART_SYMBOL = "_ZN6amdahl8profiler14write_part_nowEv"


class _Tls(threading.local):
    def __init__(self):
        self.stack = []         # names of the ranges this module has open on this thread
        self.opt_pushed = []    # per open optimizer step: whether it pushed gpu_compute
        self.get_idx = None     # idx of the last (idx, data) taken from the result queue


_tls = _Tls()

# The step: a start/end range on the driving thread, opened by the first training event after
# the previous optimizer step (a batch fetch, forward, backward, zero_grad or the optimizer step
# itself) and closed at the end of the optimizer step.
_step_id = None
_step_opened = False            # a step is open (its id may be None with the null backend)
_opt_steps = 0                  # optimizer steps so far (GradScaler uses it to spot skipped ones)


def _verbose(msg):
    if os.environ.get("AMDAHL_TORCH_VERBOSE"):
        sys.stderr.write("amdahl_torch: %s\n" % msg)


def _uncovered(what, err=None):
    if what in uncovered:
        return
    uncovered.append(what)
    _verbose("not annotated: %s%s" % (what, " (%s)" % err if err is not None else ""))
    try:
        _B.mark("torch.uncovered:" + what)
    except Exception:  # noqa: BLE001
        pass


_skip = {x.strip() for x in os.environ.get("AMDAHL_TORCH_SKIP", "").split(",") if x.strip()}


def _place(what, fn):
    """Runs one patch; a failure records `what` as uncovered and leaves the code as it was.
    AMDAHL_TORCH_SKIP=name[,name...] leaves the named patches out (recorded as uncovered)."""
    if what in _skip:
        _uncovered(what, "skipped by AMDAHL_TORCH_SKIP")
        return False
    try:
        fn()
        placed.append(what)
        return True
    except Exception as e:  # noqa: BLE001
        _uncovered(what, e)
        return False


# ---------------------------------------------------------------------------------------------
# ranges

def _run_in(name, fn, args, kwargs):
    """Calls fn inside an `amdahl` range `name` (not nested in a range of the same name)."""
    st = _tls.stack
    if st and st[-1] == name:
        return fn(*args, **kwargs)
    _B.push(name)
    st.append(name)
    try:
        return fn(*args, **kwargs)
    finally:
        st.pop()
        _B.pop()


def _on_driver():
    return not _in_worker and threading.get_ident() == _driver


def _open_step():
    """Opens a step on the driving thread unless one is open. Returns whether it opened one."""
    global _step_id, _step_opened
    if _step_opened or not _on_driver():
        return False
    _step_opened = True
    _step_id = _B.start("step")
    return True


def _close_step(partial=False):
    global _step_id, _step_opened
    if not _step_opened:
        return
    if partial:
        _B.mark("torch.partial_step")
    _B.end(_step_id)
    _step_id = None
    _step_opened = False


def _compute(fn, args, kwargs):
    """gpu_compute for forward/backward/zero_grad: only the outermost call, never inside another
    stage (a torchvision transform is an nn.Module called inside a fetch), never in a worker."""
    if _in_worker or _tls.stack:
        return fn(*args, **kwargs)
    _open_step()
    return _run_in("gpu_compute", fn, args, kwargs)


def _wrap(orig, body):
    """A wrapper with orig's name/doc/module/qualname (pickling by reference keeps working)."""
    def wrapper(*args, **kwargs):
        return body(orig, args, kwargs)
    for a in ("__module__", "__name__", "__qualname__", "__doc__"):
        try:
            setattr(wrapper, a, getattr(orig, a))
        except Exception:  # noqa: BLE001
            pass
    wrapper.__wrapped__ = orig
    wrapper._amdahl_wrapped = True
    return wrapper


def _patch_attr(owner, name, body):
    orig = getattr(owner, name)
    if getattr(orig, "_amdahl_wrapped", False):
        return
    setattr(owner, name, _wrap(orig, body))


# ---------------------------------------------------------------------------------------------
# main process: DataLoader iterators

def _predicts_end(it):
    """True when this __next__ will raise StopIteration (known length, all batches yielded)."""
    try:
        return it._num_yielded >= len(it)
    except Exception:  # noqa: BLE001 (an IterableDataset without len)
        return False


def _single_next_data(orig, args, kwargs):
    it = args[0]
    opened = False if _predicts_end(it) else _open_step()
    try:
        return orig(*args, **kwargs)
    except StopIteration:
        if opened:
            _close_step(partial=True)
        raise


def _mp_next_data(orig, args, kwargs):
    it = args[0]
    opened = False if _predicts_end(it) else _open_step()
    st = _tls.stack
    _tls.get_idx = None
    before = getattr(it, "_rcvd_idx", None)
    _B.push("wait")
    st.append("wait")
    try:
        data = orig(*args, **kwargs)
    except StopIteration:
        st.pop()
        _B.pop()
        if opened:
            _close_step(partial=True)
        raise
    except BaseException:
        st.pop()
        _B.pop()
        raise
    st.pop()
    _B.pop()
    # The batch just returned: in order (the default), the iterator has moved _rcvd_idx past it;
    # otherwise it is the idx of the last (idx, data) pair taken from the queue.
    idx = None
    after = getattr(it, "_rcvd_idx", None)
    if getattr(it, "_in_order", True) and isinstance(after, int) and isinstance(before, int) \
            and after > before:
        idx = after - 1
    elif isinstance(_tls.get_idx, int):
        idx = _tls.get_idx
    if idx is not None:
        _B.mark("consume", idx)
    return data


def _mp_get_data(orig, args, kwargs):
    r = orig(*args, **kwargs)
    try:
        _tls.get_idx = r[0] if type(r[0]) is int else None
    except Exception:  # noqa: BLE001
        pass
    return r


def _patch_dataloader(torch):
    dl = sys.modules.get("torch.utils.data.dataloader")
    if dl is None:
        import torch.utils.data.dataloader as dl  # noqa: PLC0415
    single = getattr(dl, "_SingleProcessDataLoaderIter")
    multi = getattr(dl, "_MultiProcessingDataLoaderIter", None) or getattr(dl, "_MultiProcessDataLoaderIter")
    _place("dataloader_single", lambda: _patch_attr(single, "_next_data", _single_next_data))
    _place("dataloader_wait", lambda: _patch_attr(multi, "_next_data", _mp_next_data))
    if hasattr(multi, "_get_data"):
        _place("dataloader_get", lambda: _patch_attr(multi, "_get_data", _mp_get_data))


# ---------------------------------------------------------------------------------------------
# worker processes: the worker loop, the fetcher, file reads

class _IndexQueueProxy:
    """The worker's index queue: a worker blocked for its next index is a `wait`."""
    __slots__ = ("_q",)

    def __init__(self, q):
        self._q = q

    def get(self, *args, **kwargs):
        _B.push("wait")
        try:
            return self._q.get(*args, **kwargs)
        finally:
            _B.pop()

    def __getattr__(self, name):
        return getattr(self._q, name)


class _DataQueueProxy:
    """The worker's result queue: `produce(idx)` before each (idx, batch) becomes visible."""
    __slots__ = ("_q",)

    def __init__(self, q):
        self._q = q

    def put(self, obj, *args, **kwargs):
        try:
            idx = obj[0]
            if type(idx) is int:
                _B.mark("produce", idx)
        except Exception:  # noqa: BLE001
            pass
        return self._q.put(obj, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._q, name)


def _flush_part():
    """A forked worker leaves through os._exit(), which skips the collector's atexit writer:
    ask the collector (already loaded in this process) to write the part now."""
    path = os.environ.get("NVTX_INJECTION64_PATH")
    if not path:
        return
    try:
        lib = ctypes.CDLL(path, mode=getattr(os, "RTLD_NOLOAD", 4) | getattr(os, "RTLD_LAZY", 1))
        getattr(lib, _WRITE_PART_SYMBOL)()
    except Exception as e:  # noqa: BLE001 (not loaded, or another NVTX tool)
        _uncovered("worker_part_flush", e)


_worker_sig = None


def _worker_loop(orig, args, kwargs):
    global _in_worker
    _in_worker = True
    _tls.stack = []
    try:
        bound = _worker_sig.bind(*args, **kwargs)
        a = bound.arguments
        a["index_queue"] = _IndexQueueProxy(a["index_queue"])
        a["data_queue"] = _DataQueueProxy(a["data_queue"])
        args, kwargs = bound.args, bound.kwargs
    except Exception as e:  # noqa: BLE001
        _uncovered("worker_produce", e)
    try:
        return orig(*args, **kwargs)
    finally:
        _flush_part()


def _patch_worker_loop(torch):
    global _worker_sig
    wmod = sys.modules.get("torch.utils.data._utils.worker")
    if wmod is None:
        import torch.utils.data._utils.worker as wmod  # noqa: PLC0415
    orig = wmod._worker_loop
    if getattr(orig, "_amdahl_wrapped", False):
        return
    _worker_sig = inspect.signature(orig)
    if "index_queue" not in _worker_sig.parameters or "data_queue" not in _worker_sig.parameters:
        raise RuntimeError("_worker_loop has no index_queue/data_queue parameters")
    wrapped = _wrap(orig, _worker_loop)
    wmod._worker_loop = wrapped
    # Where the DataLoader module imported the function by name, replace it there too.
    dl = sys.modules.get("torch.utils.data.dataloader")
    if dl is not None and getattr(dl, "_worker_loop", None) is orig:
        dl._worker_loop = wrapped


def _fetch(orig, args, kwargs):
    return _run_in("cpu_preprocess", orig, args, kwargs)


def _patch_fetchers(torch):
    fmod = sys.modules.get("torch.utils.data._utils.fetch")
    if fmod is None:
        import torch.utils.data._utils.fetch as fmod  # noqa: PLC0415
    n = 0
    for cls_name in ("_MapDatasetFetcher", "_IterableDatasetFetcher"):
        cls = getattr(fmod, cls_name, None)
        if cls is not None and "fetch" in cls.__dict__:
            _patch_attr(cls, "fetch", _fetch)
            n += 1
    if n == 0:
        raise RuntimeError("no dataset fetcher classes")


def _disk_io(orig, args, kwargs):
    st = _tls.stack
    if not st or st[-1] != "cpu_preprocess":
        return orig(*args, **kwargs)
    return _run_in("disk_io", orig, args, kwargs)


def _patch_open():
    _patch_attr(builtins, "open", _disk_io)


def patch_pil_image(mod):
    """PIL.Image.open (opens the file, reads the header) as disk_io inside a fetch."""
    _place("pil_open", lambda: _patch_attr(mod, "open", _disk_io))


def patch_pil_jpeg(mod):
    """JpegImageFile.load_read (the byte reads while decoding) as disk_io inside a fetch."""
    cls = getattr(mod, "JpegImageFile", None)
    if cls is not None and "load_read" in cls.__dict__:
        _place("pil_jpeg_read", lambda: _patch_attr(cls, "load_read", _disk_io))


# ---------------------------------------------------------------------------------------------
# copies to the GPU

_torch_device = None
_torch_tensor = None


def _is_cuda_target(d):
    if d is None:
        return False
    if isinstance(d, str):
        return d.startswith("cuda")
    if isinstance(d, bool):
        return False
    if isinstance(d, int):
        return True                          # a device index means a CUDA device
    if _torch_device is not None and isinstance(d, _torch_device):
        return getattr(d, "type", None) == "cuda"
    if _torch_tensor is not None and isinstance(d, _torch_tensor):
        return bool(getattr(d, "is_cuda", False))
    return False


def _tensor_to(orig, args, kwargs):
    t = args[0]
    try:
        h2d = not t.is_cuda and _is_cuda_target(kwargs.get("device", args[1] if len(args) > 1 else None))
    except Exception:  # noqa: BLE001
        h2d = False
    if not h2d:
        return orig(*args, **kwargs)
    return _run_in("h2d", orig, args, kwargs)


def _tensor_cuda(orig, args, kwargs):
    try:
        h2d = not args[0].is_cuda
    except Exception:  # noqa: BLE001
        h2d = False
    if not h2d:
        return orig(*args, **kwargs)
    return _run_in("h2d", orig, args, kwargs)


def _h2d(orig, args, kwargs):
    return _run_in("h2d", orig, args, kwargs)


def _patch_copies(torch):
    global _torch_device, _torch_tensor
    _torch_device = getattr(torch, "device", None)
    _torch_tensor = torch.Tensor
    if not isinstance(_torch_device, type):
        _torch_device = None
    _place("tensor_to", lambda: _patch_attr(torch.Tensor, "to", _tensor_to))
    _place("tensor_cuda", lambda: _patch_attr(torch.Tensor, "cuda", _tensor_cuda))
    _place("tensor_pin_memory", lambda: _patch_attr(torch.Tensor, "pin_memory", _h2d))

    def pin_thread():
        pmod = sys.modules.get("torch.utils.data._utils.pin_memory")
        if pmod is None:
            import torch.utils.data._utils.pin_memory as pmod  # noqa: PLC0415
        _patch_attr(pmod, "pin_memory", _h2d)
    _place("pin_memory_thread", pin_thread)


# ---------------------------------------------------------------------------------------------
# compute and the step

def _body_compute(orig, args, kwargs):
    return _compute(orig, args, kwargs)


# nn.Module.__call__ runs for every module of the model (hundreds per step in a transformer),
# while the gpu_compute stage needs only the outermost call. While the driving thread is inside
# an outermost forward, _fwd_busy is set and every inner call takes a one-frame fast path: one
# global read, then the original call. AMDAHL_TORCH_MODULE_CALLS=all keeps the general path for
# every call (the thread-local stack check of _compute; for comparison, docs/torch.md).
_fwd_busy = False
_module_calls_all = os.environ.get("AMDAHL_TORCH_MODULE_CALLS", "") == "all"


def _outer_forward(orig, args, kwargs):
    global _fwd_busy
    if _tls.stack or not _on_driver():
        return _compute(orig, args, kwargs)
    _fwd_busy = True
    try:
        return _compute(orig, args, kwargs)
    finally:
        _fwd_busy = False


def _module_call_wrapper(orig):
    if _module_calls_all:
        return _wrap(orig, _body_compute)

    def __call__(self, *args, **kwargs):
        if _fwd_busy or _in_worker:
            return orig(self, *args, **kwargs)
        return _outer_forward(orig, (self,) + args, kwargs)
    for a in ("__module__", "__name__", "__qualname__", "__doc__"):
        try:
            setattr(__call__, a, getattr(orig, a))
        except Exception:  # noqa: BLE001
            pass
    __call__.__wrapped__ = orig
    __call__._amdahl_wrapped = True
    return __call__


def _patch_module_call(torch):
    orig = torch.nn.Module.__call__
    if getattr(orig, "_amdahl_wrapped", False):
        return
    torch.nn.Module.__call__ = _module_call_wrapper(orig)


def _opt_pre_hook(opt, args, kwargs):
    if _in_worker:
        return None
    global _driver
    if not _step_opened and threading.get_ident() != _driver and _opt_steps == 0:
        _driver = threading.get_ident()      # training runs on another thread: it drives
    _open_step()
    st = _tls.stack
    pushed = not st
    if pushed:
        _B.push("gpu_compute")
        st.append("gpu_compute")
    _tls.opt_pushed.append(pushed)
    return None


def _opt_post_hook(opt, args, kwargs):
    global _opt_steps
    if _in_worker:
        return None
    pushed = _tls.opt_pushed.pop() if _tls.opt_pushed else False
    if pushed:
        _tls.stack.pop()
        _B.pop()
    if not _tls.opt_pushed and _on_driver():
        _opt_steps += 1
        _close_step()
    return None


def _scaler_step(orig, args, kwargs):
    n0 = _opt_steps
    r = _compute(orig, args, kwargs)         # unscaling + the optimizer step
    if _opt_steps == n0 and _on_driver():   # inf/nan gradients: the step was skipped
        _close_step()
    return r


def _patch_compute(torch):
    _place("module_forward", lambda: _patch_module_call(torch))
    _place("tensor_backward", lambda: _patch_attr(torch.Tensor, "backward", _body_compute))
    _place("autograd_backward", lambda: _patch_attr(torch.autograd, "backward", _body_compute))

    def optimizer():
        omod = sys.modules.get("torch.optim.optimizer")
        if omod is None:
            import torch.optim.optimizer as omod  # noqa: PLC0415
        omod.register_optimizer_step_pre_hook(_opt_pre_hook)
        omod.register_optimizer_step_post_hook(_opt_post_hook)
    _place("optimizer_step", optimizer)
    _place("optimizer_zero_grad", lambda: _patch_attr(torch.optim.Optimizer, "zero_grad", _body_compute))

    def scaler():
        done = 0
        for modname in ("torch.amp.grad_scaler", "torch.cuda.amp.grad_scaler"):
            m = sys.modules.get(modname)
            cls = getattr(m, "GradScaler", None) if m is not None else None
            if cls is not None and "step" in cls.__dict__:
                _patch_attr(cls, "step", _scaler_step)
                done += 1
        if not done:
            raise RuntimeError("no GradScaler.step")
    _place("grad_scaler_step", scaler)


def _at_exit():
    # A step opened by a batch fetch after the last optimizer step (a loop that breaks after
    # taking one more batch): close it, marked partial, so it does not run to process exit.
    if _step_opened and _on_driver():
        _close_step(partial=True)


# ---------------------------------------------------------------------------------------------

def install(torch):
    """Annotates this process's torch. Idempotent; never raises."""
    global _B, _installed, _driver
    if _installed:
        return
    _installed = True
    try:
        _B = _nvtx.make_backend(torch)
    except Exception:  # noqa: BLE001
        _B = _nvtx._NullBackend()
    if _driver is None:
        _driver = threading.main_thread().ident
    try:
        _B.mark("torch.annotations:" + _B.name)
    except Exception:  # noqa: BLE001
        pass
    if not _B.payloads:
        _uncovered("produce_consume" if _B.name != "none" else "nvtx")
    _place("dataloader", lambda: _patch_dataloader(torch))
    _place("worker_loop", lambda: _patch_worker_loop(torch))
    _place("fetch", lambda: _patch_fetchers(torch))
    _place("builtins_open", _patch_open)
    _patch_copies(torch)
    _patch_compute(torch)
    atexit.register(_at_exit)
    _verbose("backend %s; annotated: %s; not annotated: %s"
             % (_B.name, ", ".join(placed), ", ".join(uncovered) or "-"))
