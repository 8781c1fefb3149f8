# default_collate: a batch of (Tensor, int) samples -> (Tensor of all values, Tensor of labels).
from ...._tensor import Tensor


def default_collate(batch):
    xs = [v for x, _ in batch for v in x.values]
    return Tensor(xs), Tensor([y for _, y in batch])
