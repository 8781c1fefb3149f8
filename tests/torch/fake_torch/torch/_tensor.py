# Tensor: a flat list of floats with a device and a tiny autograd (grad of sum(w * x)).
import time


class device:
    def __init__(self, spec):
        self.type = spec.split(":")[0] if isinstance(spec, str) else spec.type

    def __repr__(self):
        return "device(type='%s')" % self.type


float32 = "float32"


class Tensor:
    def __init__(self, values, dev="cpu", pinned=False, grad_fn=None):
        self.values = [float(v) for v in values]
        self.device = device(dev)
        self.pinned = pinned
        self.grad = None
        self._grad_fn = grad_fn

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def _copy(self, dev, pinned=False):
        time.sleep(0.0005 * max(1, len(self.values) // 64))      # a copy takes time
        return Tensor(self.values, dev, pinned)

    def to(self, *args, **kwargs):
        target = kwargs.get("device", args[0] if args else None)
        if isinstance(target, Tensor):
            target = target.device.type
        if isinstance(target, device):
            target = target.type
        if target == float32 or target is None:
            return self
        if isinstance(target, int):
            target = "cuda"
        if target.split(":")[0] == self.device.type:
            return self
        return self._copy(target.split(":")[0])

    def cuda(self, *args, **kwargs):
        return self if self.is_cuda else self._copy("cuda")

    def pin_memory(self, *args):
        return self._copy("cpu", pinned=True)

    def sum(self):
        return Tensor([sum(self.values)], self.device.type)

    def item(self):
        return self.values[0]

    def __len__(self):
        return len(self.values)

    def backward(self, *args, **kwargs):
        from . import autograd
        autograd.backward(self)


def tensor(values):
    return Tensor(values)
