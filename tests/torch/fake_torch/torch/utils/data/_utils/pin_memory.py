# The pin-memory thread's loop and pin_memory(data) (torch.utils.data._utils.pin_memory).
import queue

from ...._tensor import Tensor


def pin_memory(data, device=None):
    if isinstance(data, Tensor):
        return data.pin_memory()
    if isinstance(data, tuple):
        return tuple(pin_memory(d, device) for d in data)
    return data


def _pin_memory_loop(in_queue, out_queue, device_id, done_event, device):
    def do_one_step():
        try:
            r = in_queue.get(timeout=0.1)
        except queue.Empty:
            return
        idx, data = r
        if not done_event.is_set():
            data = pin_memory(data, device)
        out_queue.put((idx, data))
    while not done_event.is_set():
        do_one_step()
