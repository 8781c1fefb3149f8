# A stand-in for the pieces of torch that amdahl_torch patches, for CI without torch: Tensor
# (to/cuda/pin_memory/backward), nn.Module, optim.Optimizer with the global step hooks, and a
# DataLoader whose structure follows torch's (worker processes through multiprocessing, the
# worker loop, fetchers, the pin-memory thread). Pure Python lists; deterministic.
from . import autograd, cuda, nn, optim, utils  # noqa: F401
from ._tensor import Tensor, device, float32, tensor  # noqa: F401

__version__ = "0.0-fake"
