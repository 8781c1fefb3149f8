# autograd.backward: runs the tensor's recorded gradient function.
import time


def backward(tensors, *args, **kwargs):
    t = tensors[0] if isinstance(tensors, (list, tuple)) else tensors
    time.sleep(0.002)                                          # "GPU" backward
    if t._grad_fn is not None:
        t._grad_fn()
